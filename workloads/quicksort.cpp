// quicksort: a parallel quicksort with a lock-protected shared task queue, the TreadMarks
// QuickSort program's pattern, written from the algorithm. The array is shared; a task is a
// subarray [lo, hi). Every node repeatedly takes a task from the shared stack (under the queue
// lock): a subarray longer than `threshold` is partitioned in place around a median-of-three pivot;
// the larger part goes back to the queue for any node to take, the node goes on with the smaller
// part; a subarray of `threshold` or fewer elements is sorted by bubble sort, as in the TreadMarks
// benchmark. Partitioned pieces share the pages at their boundaries, so the multiple-writer
// protocol merges the diffs of different nodes. The sort ends when the count of elements in their
// final place (pivots and bubble-sorted pieces, added under the queue lock) reaches n.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "carnival/scope.hpp"
#include "workloads/registry.hpp"

namespace ncp2::workloads {
namespace {

constexpr std::uint32_t kSortQueueLock = 0;

// Queue header words (quicksort.queue); the tasks follow as (lo, hi) pairs.
constexpr std::size_t kTasks = 0;   // tasks on the stack
constexpr std::size_t kPlaced = 1;  // elements known to be in their final place
constexpr std::size_t kSortHeaderWords = 2;

// Operation counts per step of the native loops.
constexpr dsm::OpCounts kCompareOps{.int_ops = 1, .loads = 1, .branches = 1};  // element vs pivot / neighbour
constexpr dsm::OpCounts kSwapOps{.int_ops = 1, .loads = 1, .stores = 2};       // exchange two elements
constexpr dsm::OpCounts kTaskOps{.int_ops = 4, .loads = 3, .stores = 3, .branches = 2};  // push or pop a task
constexpr dsm::OpCounts kInitOps{.int_ops = 12, .stores = 1};                            // one seeded value

struct Counts {
  std::int64_t compares = 0;
  std::int64_t swaps = 0;
};

// Partitions a (size >= 3) around the median of its first, middle and last elements; returns the
// pivot's final index: a[0, k) <= pivot = a[k] <= a[k+1, size).
std::size_t partition(std::span<std::int32_t> a, Counts& counts) {
  const std::size_t last = a.size() - 1;
  const std::size_t mid = a.size() / 2;
  // Order a[0] <= a[mid] <= a[last]: a[mid] is the pivot, a[0] and a[last] the scans' sentinels.
  auto order = [&](std::size_t x, std::size_t y) {
    ++counts.compares;
    if (a[y] < a[x]) {
      std::swap(a[x], a[y]);
      ++counts.swaps;
    }
  };
  order(0, mid);
  order(0, last);
  order(mid, last);
  std::swap(a[mid], a[last - 1]);  // the pivot waits next to the end; a[0] <= pivot <= a[last]
  ++counts.swaps;
  const std::int32_t pivot = a[last - 1];
  std::size_t i = 0;
  std::size_t j = last - 1;
  for (;;) {
    while (a[++i] < pivot) ++counts.compares;  // stops at the pivot at worst
    while (pivot < a[--j]) ++counts.compares;  // stops at a[0] at worst
    counts.compares += 2;
    if (i >= j) break;
    std::swap(a[i], a[j]);
    ++counts.swaps;
  }
  std::swap(a[i], a[last - 1]);
  ++counts.swaps;
  return i;
}

// Bubble sort with the early exit when a pass swaps nothing.
void bubble_sort(std::span<std::int32_t> a, Counts& counts) {
  for (std::size_t end = a.size(); end > 1; --end) {
    bool swapped = false;
    for (std::size_t i = 1; i < end; ++i) {
      ++counts.compares;
      if (a[i] < a[i - 1]) {
        std::swap(a[i], a[i - 1]);
        ++counts.swaps;
        swapped = true;
      }
    }
    if (!swapped) break;
  }
}

class QuickSort final : public Instance {
 public:
  QuickSort(const Params& params, int nodes, std::uint64_t seed)
      : n_(static_cast<std::size_t>(params.integer("n"))),
        threshold_(static_cast<std::size_t>(params.integer("threshold"))),
        backoff_(emu::picoseconds(std::llround(params.real("backoff_us") * 1e6))),
        range_(static_cast<std::uint64_t>(params.integer("range"))),
        capacity_(n_ / (threshold_ + 1) + 2),
        seed_(seed),
        placed_(static_cast<std::size_t>(nodes), 0) {}

  void run(dsm::Process& p) override {
    allocate(p);
    if (p.id() == 0) initialize(p);
    p.barrier(0);  // the array and the first task are in place
    sort(p);
  }

  void verify(dsm::Process& p) override {
    if (p.id() != 0) return;
    std::vector<std::int32_t> expected(n_);
    for (std::size_t i = 0; i < n_; ++i) expected[i] = initial(i);
    std::ranges::sort(expected);
    const auto result = p.view(data_).read_span(0, n_);
    if (!std::ranges::is_sorted(result)) {
      const auto at = static_cast<std::size_t>(std::ranges::is_sorted_until(result) - result.begin());
      return fail(fmt::format("not sorted: a[{}] = {} > a[{}] = {}", at - 1, result[at - 1], at, result[at]));
    }
    const auto [mine, theirs] = std::ranges::mismatch(result, expected);
    if (mine != result.end()) {
      const auto at = static_cast<std::size_t>(mine - result.begin());
      return fail(fmt::format("sorted, but not the input's elements: a[{}] = {}, the sequential sort has {}",
                              at, *mine, *theirs));
    }
    pass(fmt::format("{} integers sorted, the same as the sequential sort", n_));
  }

 private:
  [[nodiscard]] std::int32_t initial(std::size_t i) const {
    const std::uint64_t r = seeded(seed_, i);
    return range_ == 0 ? static_cast<std::int32_t>(static_cast<std::uint32_t>(r))
                       : static_cast<std::int32_t>(r % range_);
  }

  void allocate(dsm::Process& p) {  // collective
    data_ = p.alloc<std::int32_t>("quicksort.data", n_);
    queue_ = p.alloc<std::int32_t>("quicksort.queue", kSortHeaderWords + 2 * capacity_);
  }

  // Node 0 fills the array from the seed and queues the whole of it.
  void initialize(dsm::Process& p) const {
    CARNIVAL_SCOPE_KIND(p, "initialize", "function");
    const auto data = p.view(data_).write_span(0, n_);
    for (std::size_t i = 0; i < n_; ++i) data[i] = initial(i);
    p.charge(kInitOps * static_cast<double>(n_));
    const auto queue = p.view(queue_).write_span(0, kSortHeaderWords + 2);
    queue[kTasks] = 1;
    queue[kPlaced] = 0;
    queue[kSortHeaderWords] = 0;
    queue[kSortHeaderWords + 1] = static_cast<std::int32_t>(n_);
  }

  enum class Take { Task, Empty, Done };

  void sort(dsm::Process& p) {
    for (;;) {
      CARNIVAL_SCOPE_KIND(p, "task loop", "loop");
      std::pair<std::size_t, std::size_t> task;
      const Take took = take(p, task);
      if (took == Take::Done) break;
      if (took == Take::Empty) {  // others are partitioning: look again a little later
        p.compute(backoff_);
        continue;
      }
      auto [lo, hi] = task;
      while (hi - lo > threshold_) {  // partition, queue the larger part, go on with the smaller
        const std::size_t k = split(p, lo, hi);
        ++placed_[static_cast<std::size_t>(p.id())];
        std::pair larger{lo, k}, smaller{k + 1, hi};
        if (k - lo < hi - (k + 1)) std::swap(larger, smaller);
        if (larger.second - larger.first > threshold_)
          give(p, larger);
        else
          small_sort(p, larger.first, larger.second);
        std::tie(lo, hi) = smaller;
      }
      small_sort(p, lo, hi);
    }
  }

  // Under the queue lock: report the elements placed since the last visit, and pop a task.
  Take take(dsm::Process& p, std::pair<std::size_t, std::size_t>& task) {
    CARNIVAL_SCOPE_KIND(p, "take", "function");
    auto guard = p.lock(kSortQueueLock);
    const auto queue = p.view(queue_);
    auto& mine = placed_[static_cast<std::size_t>(p.id())];
    const std::int64_t placed = queue.get(kPlaced) + mine;
    if (mine != 0) queue.set(kPlaced, static_cast<std::int32_t>(placed));
    mine = 0;
    const std::int32_t tasks = queue.get(kTasks);
    p.charge(kTaskOps);
    if (tasks == 0) return placed == static_cast<std::int64_t>(n_) ? Take::Done : Take::Empty;
    const std::size_t top = kSortHeaderWords + 2 * static_cast<std::size_t>(tasks - 1);
    task = {static_cast<std::size_t>(queue.get(top)), static_cast<std::size_t>(queue.get(top + 1))};
    queue.set(kTasks, tasks - 1);
    return Take::Task;
  }

  // Under the queue lock: push a task for any node to take.
  void give(dsm::Process& p, std::pair<std::size_t, std::size_t> task) {
    CARNIVAL_SCOPE_KIND(p, "give", "function");
    auto guard = p.lock(kSortQueueLock);
    const auto queue = p.view(queue_);
    const std::int32_t tasks = queue.get(kTasks);
    const std::size_t top = kSortHeaderWords + 2 * static_cast<std::size_t>(tasks);
    queue.set(top, static_cast<std::int32_t>(task.first));
    queue.set(top + 1, static_cast<std::int32_t>(task.second));
    queue.set(kTasks, tasks + 1);
    p.charge(kTaskOps);
  }

  std::size_t split(dsm::Process& p, std::size_t lo, std::size_t hi) {
    CARNIVAL_SCOPE_KIND(p, "partition", "function");
    Counts counts;
    const std::size_t k = lo + partition(p.view(data_).write_span(lo, hi - lo), counts);
    charge(p, counts);
    return k;
  }

  void small_sort(dsm::Process& p, std::size_t lo, std::size_t hi) {
    CARNIVAL_SCOPE_KIND(p, "bubble sort", "function");
    Counts counts;
    if (hi > lo) bubble_sort(p.view(data_).write_span(lo, hi - lo), counts);
    charge(p, counts);
    placed_[static_cast<std::size_t>(p.id())] += static_cast<std::int64_t>(hi - lo);
  }

  static void charge(dsm::Process& p, const Counts& counts) {
    p.charge(kCompareOps * static_cast<double>(counts.compares) +
             kSwapOps * static_cast<double>(counts.swaps));
  }

  std::size_t n_;
  std::size_t threshold_;
  emu::Duration backoff_;
  std::uint64_t range_;   // values in [0, range); 0: any int32
  std::size_t capacity_;  // tasks the stack can hold: each queued task has more than threshold elements
  std::uint64_t seed_;
  std::vector<std::int64_t> placed_;  // per node: placed since its last visit to the queue
  dsm::SharedArray<std::int32_t> data_;
  dsm::SharedArray<std::int32_t> queue_;
};

}  // namespace

Workload quicksort_workload() {
  Workload w;
  w.name = "quicksort";
  w.description =
      "parallel quicksort: a lock-protected shared stack of subarrays; small subarrays bubble-sorted locally";
  w.parameters = {
      int_param("n", 65536, "integers (int32) to sort, drawn from the seed", 1, 1 << 22),
      int_param("threshold", 1024, "subarrays of at most this many elements are bubble-sorted", 2, 1 << 16),
      int_param("range", 0, "values drawn in [0, range) (few distinct values: many duplicates); 0: any int32",
                0, std::int64_t{1} << 31),
      real_param("backoff_us", 50.0,
                 "wait before looking again at an empty queue while others still work, in us", 0.1, 1e6),
  };
  w.presets = {
      {"small", {{"n", std::int64_t{8192}}, {"threshold", std::int64_t{128}}}},
      {"paper", {{"n", std::int64_t{262144}}, {"threshold", std::int64_t{1024}}}},
  };
  w.make = [](const Params& params, int nodes, std::uint64_t seed) {
    return std::make_unique<QuickSort>(params, nodes, seed);
  };
  return w;
}

}  // namespace ncp2::workloads
