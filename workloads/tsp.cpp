// tsp: the travelling salesman by branch and bound, as in the TreadMarks TSP program. Written from
// the algorithm:
//   - a shared pool of partial tours (city 0 first), a shared priority queue (binary heap keyed by
//     each tour's lower bound) of the tours waiting to be explored, and a stack of free pool slots,
//     all under the queue lock;
//   - the length of the best tour found so far and the tour itself, under the bound lock;
//   - every node repeatedly takes the most promising tour from the queue; a tour with more than
//     `threshold` cities left is expanded by one city and its children (those whose bound beats the
//     best length) go back to the queue; a tour with `threshold` or fewer cities left is solved
//     locally by depth-first search, nearest city first, with the node's private copy of the best
//     length, updated under the bound lock when the node finds a shorter tour.
// The search ends when the queue is empty and no node is expanding or solving a tour. Lower bound
// of a partial tour: its length plus the weight of a minimum spanning tree of its last city, the
// unvisited cities and city 0 (the rest of the tour is a path through them). The best length starts at the
// length of the nearest-neighbour tour, so the search proves optimality rather than finding a first tour. The
// result (the optimal length) does not depend on the node count or the order of the search; it is verified
// against Held-Karp dynamic programming.
#include "workloads/tsp.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <vector>

#include <fmt/format.h>

#include "carnival/scope.hpp"
#include "workloads/registry.hpp"

namespace ncp2::workloads {

namespace tsp {

Instance make_instance(int cities, std::uint64_t seed) {
  Instance instance;
  instance.cities = cities;
  std::vector<double> x(static_cast<std::size_t>(cities)), y(static_cast<std::size_t>(cities));
  for (int c = 0; c < cities; ++c) {
    const auto i = static_cast<std::size_t>(c);
    x[i] = static_cast<double>(seeded(seed, 2 * i) % 1000);
    y[i] = static_cast<double>(seeded(seed, 2 * i + 1) % 1000);
  }
  instance.distance.resize(tsp::index_of(cities * cities));
  for (int a = 0; a < cities; ++a)
    for (int b = 0; b < cities; ++b) {
      const auto ia = static_cast<std::size_t>(a), ib = static_cast<std::size_t>(b);
      instance.distance[ia * static_cast<std::size_t>(cities) + ib] =
          static_cast<std::int32_t>(std::lround(std::hypot(x[ia] - x[ib], y[ia] - y[ib])));
    }
  return instance;
}

std::int64_t optimal_tour_length(const Instance& instance) {
  const int n = instance.cities;
  if (n < 2) return 0;
  // best[mask][j]: the shortest path from city 0 through the cities of `mask` (bit k = city k+1),
  // ending at city j+1 (whose bit is in mask).
  const int others = n - 1;
  const std::size_t masks = std::size_t{1} << others;
  constexpr std::int32_t kInf = std::numeric_limits<std::int32_t>::max() / 2;
  std::vector<std::int32_t> best(masks * static_cast<std::size_t>(others), kInf);
  auto at = [&](std::size_t mask, int j) -> std::int32_t& {
    return best[mask * static_cast<std::size_t>(others) + static_cast<std::size_t>(j)];
  };
  for (int j = 0; j < others; ++j) at(std::size_t{1} << j, j) = instance.d(0, j + 1);
  for (std::size_t mask = 1; mask < masks; ++mask)
    for (int j = 0; j < others; ++j) {
      if (!(mask >> j & 1u)) continue;
      const std::int32_t here = at(mask, j);
      if (here >= kInf) continue;
      for (int k = 0; k < others; ++k) {
        if (mask >> k & 1u) continue;
        std::int32_t& next = at(mask | std::size_t{1} << k, k);
        next = std::min(next, here + instance.d(j + 1, k + 1));
      }
    }
  std::int64_t shortest = std::numeric_limits<std::int64_t>::max();
  for (int j = 0; j < others; ++j)
    shortest = std::min<std::int64_t>(shortest, std::int64_t{at(masks - 1, j)} + instance.d(j + 1, 0));
  return shortest;
}

}  // namespace tsp

namespace {

constexpr std::uint32_t kQueueLock = 0;
constexpr std::uint32_t kBoundLock = 1;
constexpr int kPathCapacity = 48;  // cities a pool record can hold (>= tsp::kMaxCities)
static_assert(kPathCapacity >= tsp::kMaxCities);

// One partial tour in the shared pool: 64 bytes, so a page holds a whole number of them.
struct TourRecord {
  std::int32_t length = 0;  // of the path so far (cities path[0..depth))
  std::int32_t bound = 0;   // lower bound on any complete tour extending it
  std::int32_t depth = 0;   // cities on the path; path[0] is city 0
  std::int32_t unused = 0;
  std::array<std::uint8_t, kPathCapacity> path{};
};
static_assert(sizeof(TourRecord) == 64);

// Queue header words (tsp.queue).
constexpr std::size_t kHeapSize = 0;  // tours in the heap
constexpr std::size_t kFreeSize = 1;  // free slots on the free stack
constexpr std::size_t kBusy = 2;      // nodes holding a tour taken from the queue
constexpr std::size_t kHeaderWords = 4;

// Operation counts of the search, per step.
constexpr dsm::OpCounts kCandidateOps{.int_ops = 3, .loads = 3, .branches = 2};           // one city tried
constexpr dsm::OpCounts kVisitOps{.int_ops = 4, .loads = 1, .stores = 3, .branches = 2};  // enter a node
constexpr dsm::OpCounts kHeapLevelOps{.int_ops = 3, .loads = 2, .stores = 2, .branches = 2};  // sift step
constexpr dsm::OpCounts kRecordOps{.int_ops = 2, .loads = 1, .stores = 1, .branches = 1};     // per path city
constexpr dsm::OpCounts kBoundStepOps{.int_ops = 2, .loads = 3, .stores = 1, .branches = 2};  // Prim step
constexpr std::int64_t kChargeEvery = 2048;  // DFS nodes between two charges

// Heap keys: bound in the high half, pool slot in the low half, so ties go to the lower slot.
std::int64_t heap_key(std::int32_t bound, std::int32_t slot) {
  return static_cast<std::int64_t>(bound) << 32 | static_cast<std::uint32_t>(slot);
}
std::int32_t slot_of(std::int64_t key) { return static_cast<std::int32_t>(key & 0xffffffff); }

class Tsp final : public Instance {
 public:
  Tsp(const Params& params, int nodes, std::uint64_t seed)
      : cities_(static_cast<int>(params.integer("cities"))),
        threshold_(static_cast<int>(params.integer("threshold"))),
        pool_size_(static_cast<std::size_t>(params.integer("pool"))),
        backoff_(emu::picoseconds(std::llround(params.real("backoff_us") * 1e6))),
        instance_(tsp::make_instance(cities_, seed)),
        local_(static_cast<std::size_t>(nodes)) {}

  void run(dsm::Process& p) override {
    allocate(p);
    if (p.id() == 0) initialize(p);
    p.barrier(0);  // the distances, the root tour and the first bound are in place
    load_distances(p);
    search(p);
  }

  void verify(dsm::Process& p) override {
    if (p.id() != 0) return;
    const std::int64_t optimum = tsp::optimal_tour_length(instance_);
    const auto best = p.view(best_);
    const std::int64_t found = best.get(0);
    if (found != optimum)
      return fail(fmt::format("best tour length {} , expected the optimum {} (Held-Karp)", found, optimum));
    // The stored tour visits every city once, starts at city 0, and has the stored length.
    std::vector<bool> seen(static_cast<std::size_t>(cities_), false);
    std::int64_t length = 0;
    for (int i = 0; i < cities_; ++i) {
      const std::int32_t city = best.get(tsp::index_of(1 + i));
      if (city < 0 || city >= cities_ || seen[static_cast<std::size_t>(city)] || (i == 0 && city != 0))
        return fail(fmt::format("the stored best tour is not a tour: position {} holds city {}", i, city));
      seen[static_cast<std::size_t>(city)] = true;
      const std::int32_t next = i + 1 < cities_ ? best.get(tsp::index_of(2 + i)) : 0;
      if (next >= 0 && next < cities_) length += instance_.d(city, next);
    }
    if (length != found)
      return fail(
          fmt::format("the stored best tour has length {}, but the stored length is {}", length, found));
    pass(fmt::format("optimal tour length {} over {} cities (Held-Karp agrees); tour verified", found,
                     cities_));
  }

 private:
  // What each node keeps privately: the distances, each city's neighbours nearest first, and its
  // copy of the best length.
  struct Local {
    std::vector<std::int32_t> distance;
    std::vector<std::uint8_t> nearest;  // cities x (cities - 1)
    std::int32_t best = std::numeric_limits<std::int32_t>::max();
    std::int64_t visits_uncharged = 0;
    std::int64_t candidates_uncharged = 0;
    std::int64_t bound_steps_uncharged = 0;  // inner steps of Prim's algorithm
  };

  enum class Take { Tour, Empty, Done };

  [[nodiscard]] std::int32_t d(const Local& l, int from, int to) const {
    return l.distance[tsp::index_of(from * cities_ + to)];
  }

  void allocate(dsm::Process& p) {  // collective
    distance_ = p.alloc<std::int32_t>("tsp.distance", tsp::index_of(cities_ * cities_));
    pool_ = p.alloc<TourRecord>("tsp.pool", pool_size_);
    queue_ = p.alloc<std::int32_t>("tsp.queue", kHeaderWords);
    heap_ = p.alloc<std::int64_t>("tsp.heap", pool_size_);
    free_ = p.alloc<std::int32_t>("tsp.free", pool_size_);
    best_ = p.alloc<std::int32_t>("tsp.best", tsp::index_of(1 + cities_));
  }

  // Node 0: the distances, the free slots, the root tour (city 0 alone) in the queue, and the
  // nearest-neighbour tour as the first best tour.
  void initialize(dsm::Process& p) {
    CARNIVAL_SCOPE_KIND(p, "initialize", "function");
    const auto n = static_cast<std::size_t>(cities_);
    std::ranges::copy(instance_.distance, p.view(distance_).write_span(0, n * n).begin());
    p.charge(dsm::OpCounts{.flops = 12, .int_ops = 4, .loads = 2, .stores = 1} * static_cast<double>(n * n));

    const auto free_slots = p.view(free_).write_span(0, pool_size_);
    for (std::size_t i = 0; i < pool_size_; ++i)
      free_slots[i] = static_cast<std::int32_t>(pool_size_ - 1 - i);  // slot 0 on top
    p.charge(dsm::OpCounts{.int_ops = 2, .stores = 1} * static_cast<double>(pool_size_));

    TourRecord root;
    root.depth = 1;
    root.path[0] = 0;
    root.bound = 0;  // the root is always expanded
    const auto slot = free_slots[pool_size_ - 1];
    p.view(pool_).set(static_cast<std::size_t>(slot), root);
    p.view(heap_).set(0, heap_key(root.bound, slot));
    const auto queue = p.view(queue_);
    queue.set(kHeapSize, 1);
    queue.set(kFreeSize, static_cast<std::int32_t>(pool_size_ - 1));
    queue.set(kBusy, 0);

    // Nearest neighbour from city 0.
    std::vector<bool> visited(n, false);
    std::vector<std::int32_t> tour{0};
    visited[0] = true;
    std::int32_t length = 0;
    for (int step = 1; step < cities_; ++step) {
      const int from = tour.back();
      int next = -1;
      for (int c = 0; c < cities_; ++c)
        if (!visited[static_cast<std::size_t>(c)] &&
            (next < 0 || instance_.d(from, c) < instance_.d(from, next)))
          next = c;
      visited[static_cast<std::size_t>(next)] = true;
      length += instance_.d(from, next);
      tour.push_back(next);
    }
    length += instance_.d(tour.back(), 0);
    p.charge(kCandidateOps * static_cast<double>(n * n));
    const auto best = p.view(best_).write_span(0, n + 1);
    best[0] = length;
    std::ranges::copy(tour, best.begin() + 1);
  }

  // Every node copies the shared distances and derives its search tables from them.
  void load_distances(dsm::Process& p) {
    CARNIVAL_SCOPE_KIND(p, "load distances", "function");
    Local& l = local_[static_cast<std::size_t>(p.id())];
    const auto n = static_cast<std::size_t>(cities_);
    const auto shared = p.view(distance_).read_span(0, n * n);
    l.distance.assign(shared.begin(), shared.end());
    l.nearest.clear();
    for (int from = 0; from < cities_; ++from) {
      std::vector<std::uint8_t> order;
      for (int to = 0; to < cities_; ++to)
        if (to != from) order.push_back(static_cast<std::uint8_t>(to));
      std::ranges::stable_sort(order,
                               [&](std::uint8_t a, std::uint8_t b) { return d(l, from, a) < d(l, from, b); });
      l.nearest.insert(l.nearest.end(), order.begin(), order.end());
    }
    // A sort of each row: about n log n compares and moves per city.
    const double sort_steps = static_cast<double>(n * n) * std::max(1.0, std::log2(static_cast<double>(n)));
    p.charge(dsm::OpCounts{.int_ops = 2, .loads = 2, .stores = 1, .branches = 1} * sort_steps);
  }

  void search(dsm::Process& p) {
    Local& l = local_[static_cast<std::size_t>(p.id())];
    bool holding = false;  // this node holds a tour taken from the queue (counted in kBusy)
    for (;;) {
      CARNIVAL_SCOPE_KIND(p, "search loop", "loop");
      TourRecord tour;
      const Take took = take(p, holding, tour);
      if (took == Take::Done) break;
      if (took == Take::Empty) {  // others are still expanding: look again a little later
        holding = false;
        p.compute(backoff_);
        continue;
      }
      holding = true;
      if (tour.bound >= l.best) continue;  // pruned: the best tour improved since it was queued
      if (cities_ - tour.depth <= threshold_)
        solve(p, tour);
      else
        expand(p, tour);
    }
  }

  // Under the queue lock: hand back the previous tour (if any), take the most promising one, and
  // refresh the private best length from the shared one.
  Take take(dsm::Process& p, bool holding, TourRecord& tour) {
    CARNIVAL_SCOPE_KIND(p, "take", "function");
    auto guard = p.lock(kQueueLock);
    const auto queue = p.view(queue_);
    std::int32_t busy = queue.get(kBusy) - (holding ? 1 : 0);
    const std::int32_t size = queue.get(kHeapSize);
    if (size == 0) {
      queue.set(kBusy, busy);
      return busy == 0 ? Take::Done : Take::Empty;
    }
    const std::int32_t slot = slot_of(pop_heap(p, size));
    queue.set(kHeapSize, size - 1);
    queue.set(kBusy, busy + 1);
    tour = p.view(pool_).get(static_cast<std::size_t>(slot));
    const std::int32_t free_count = queue.get(kFreeSize);
    p.view(free_).set(static_cast<std::size_t>(free_count), slot);
    queue.set(kFreeSize, free_count + 1);
    p.charge(kRecordOps * static_cast<double>(tour.depth));
    refresh_best(p);
    return Take::Tour;
  }

  void refresh_best(dsm::Process& p) {
    auto guard = p.lock(kBoundLock);
    Local& l = local_[static_cast<std::size_t>(p.id())];
    l.best = std::min(l.best, p.view(best_).get(0));
  }

  // Removes the heap's smallest key (the heap holds `size` keys) and returns it.
  std::int64_t pop_heap(dsm::Process& p, std::int32_t size) {
    const auto heap = p.view(heap_).write_span(0, static_cast<std::size_t>(size));
    const std::int64_t top = heap[0];
    const std::int64_t last = heap[static_cast<std::size_t>(size - 1)];
    std::size_t hole = 0;
    const auto n = static_cast<std::size_t>(size - 1);
    std::int64_t levels = 0;
    for (std::size_t child = 1; child < n; child = 2 * hole + 1, ++levels) {
      if (child + 1 < n && heap[child + 1] < heap[child]) ++child;
      if (heap[child] >= last) break;
      heap[hole] = heap[child];
      hole = child;
    }
    if (n > 0) heap[hole] = last;
    p.charge(kHeapLevelOps * static_cast<double>(levels + 1));
    return top;
  }

  void push_heap(dsm::Process& p, std::int32_t size, std::int64_t key) {
    const auto heap = p.view(heap_).write_span(0, tsp::index_of(size + 1));
    auto hole = static_cast<std::size_t>(size);
    std::int64_t levels = 0;
    for (; hole > 0 && heap[(hole - 1) / 2] > key; ++levels) {
      heap[hole] = heap[(hole - 1) / 2];
      hole = (hole - 1) / 2;
    }
    heap[hole] = key;
    p.charge(kHeapLevelOps * static_cast<double>(levels + 1));
  }

  // Extends `tour` by each unvisited city; the children that can still beat the best length go to
  // the queue, or, when the pool is full, are solved here.
  void expand(dsm::Process& p, const TourRecord& tour) {
    CARNIVAL_SCOPE_KIND(p, "expand", "function");
    Local& l = local_[static_cast<std::size_t>(p.id())];
    std::vector<bool> visited(static_cast<std::size_t>(cities_), false);
    for (int i = 0; i < tour.depth; ++i) visited[tour.path[static_cast<std::size_t>(i)]] = true;
    const int last = tour.path[static_cast<std::size_t>(tour.depth - 1)];
    std::vector<TourRecord> children;
    for (int c = 0; c < cities_; ++c) {
      if (visited[static_cast<std::size_t>(c)]) continue;
      TourRecord child = tour;
      child.path[static_cast<std::size_t>(tour.depth)] = static_cast<std::uint8_t>(c);
      child.depth = tour.depth + 1;
      child.length = tour.length + d(l, last, c);
      visited[static_cast<std::size_t>(c)] = true;
      child.bound = lower_bound(l, visited, c, child.length);
      visited[static_cast<std::size_t>(c)] = false;
      if (child.bound < l.best) children.push_back(child);
    }
    charge_search(p, l);
    p.charge(kCandidateOps * cities_ +
             kRecordOps * static_cast<double>(tour.depth) * static_cast<double>(children.size()));
    std::vector<TourRecord> overflow;
    {
      CARNIVAL_SCOPE_KIND(p, "enqueue", "block");
      auto guard = p.lock(kQueueLock);
      const auto queue = p.view(queue_);
      std::int32_t size = queue.get(kHeapSize);
      std::int32_t free_count = queue.get(kFreeSize);
      for (const TourRecord& child : children) {
        if (free_count == 0) {
          overflow.push_back(child);
          continue;
        }
        const std::int32_t slot = p.view(free_).get(static_cast<std::size_t>(--free_count));
        p.view(pool_).set(static_cast<std::size_t>(slot), child);
        push_heap(p, size++, heap_key(child.bound, slot));
      }
      p.charge(kRecordOps * static_cast<double>(tour.depth + 1) * static_cast<double>(children.size()));
      queue.set(kHeapSize, size);
      queue.set(kFreeSize, free_count);
    }
    for (const TourRecord& child : overflow) solve(p, child);
  }

  // Depth-first search below `tour`, nearest city first, pruned by the private best length.
  void solve(dsm::Process& p, const TourRecord& tour) {
    CARNIVAL_SCOPE_KIND(p, "solve locally", "function");
    Local& l = local_[static_cast<std::size_t>(p.id())];
    std::vector<std::uint8_t> path(tour.path.begin(), tour.path.begin() + tour.depth);
    std::vector<bool> visited(static_cast<std::size_t>(cities_), false);
    for (const std::uint8_t c : path) visited[c] = true;
    dfs(p, l, path, visited, tour.length);
    charge_search(p, l);
  }

  void dfs(dsm::Process& p, Local& l, std::vector<std::uint8_t>& path, std::vector<bool>& visited,
           std::int32_t length) {
    ++l.visits_uncharged;
    if (l.visits_uncharged >= kChargeEvery) charge_search(p, l);
    const int last = path.back();
    if (static_cast<int>(path.size()) == cities_) {
      const std::int32_t total = length + d(l, last, 0);
      if (total < l.best) improve(p, l, path, total);
      return;
    }
    const std::uint8_t* nearest = &l.nearest[tsp::index_of(last * (cities_ - 1))];
    for (int k = 0; k < cities_ - 1; ++k) {
      const std::uint8_t c = nearest[k];
      ++l.candidates_uncharged;
      if (visited[c]) continue;
      const std::int32_t child_length = length + d(l, last, c);
      if (child_length >= l.best) break;  // nearest first: every later city is at least as far
      visited[c] = true;
      path.push_back(c);
      if (lower_bound(l, visited, c, child_length) < l.best) dfs(p, l, path, visited, child_length);
      path.pop_back();
      visited[c] = false;
    }
  }

  // A lower bound on every complete tour extending a path of length `length` ending at `last`:
  // the path still has to connect `last`, every unvisited city and city 0, so it weighs at least
  // a minimum spanning tree of those cities (Prim's algorithm, O(k^2) for k cities).
  std::int32_t lower_bound(Local& l, const std::vector<bool>& visited, int last, std::int32_t length) const {
    std::array<std::uint8_t, tsp::kMaxCities + 1> rest{};
    std::array<std::int32_t, tsp::kMaxCities + 1> link{};
    int k = 0;
    for (int c = 1; c < cities_; ++c)
      if (!visited[static_cast<std::size_t>(c)])
        rest[static_cast<std::size_t>(k++)] = static_cast<std::uint8_t>(c);
    if (last != 0) rest[static_cast<std::size_t>(k++)] = 0;
    // Grow the tree from `last`.
    for (int i = 0; i < k; ++i)
      link[static_cast<std::size_t>(i)] = d(l, last, rest[static_cast<std::size_t>(i)]);
    std::int32_t weight = length;
    for (int remaining = k; remaining > 0; --remaining) {
      int nearest = 0;
      for (int i = 1; i < remaining; ++i)
        if (link[static_cast<std::size_t>(i)] < link[static_cast<std::size_t>(nearest)]) nearest = i;
      weight += link[static_cast<std::size_t>(nearest)];
      const std::uint8_t joined = rest[static_cast<std::size_t>(nearest)];
      rest[static_cast<std::size_t>(nearest)] = rest[static_cast<std::size_t>(remaining - 1)];
      link[static_cast<std::size_t>(nearest)] = link[static_cast<std::size_t>(remaining - 1)];
      for (int i = 0; i < remaining - 1; ++i)
        link[static_cast<std::size_t>(i)] =
            std::min(link[static_cast<std::size_t>(i)], d(l, joined, rest[static_cast<std::size_t>(i)]));
    }
    l.bound_steps_uncharged += static_cast<std::int64_t>(k) * (k + 1);
    return weight;
  }

  void charge_search(dsm::Process& p, Local& l) {
    p.charge(kVisitOps * static_cast<double>(l.visits_uncharged) +
             kCandidateOps * static_cast<double>(l.candidates_uncharged) +
             kBoundStepOps * static_cast<double>(l.bound_steps_uncharged));
    l.visits_uncharged = 0;
    l.candidates_uncharged = 0;
    l.bound_steps_uncharged = 0;
  }

  // A complete tour shorter than the private best: publish it unless another node's is shorter.
  void improve(dsm::Process& p, Local& l, const std::vector<std::uint8_t>& path, std::int32_t total) {
    CARNIVAL_SCOPE_KIND(p, "update bound", "function");
    charge_search(p, l);  // the search up to here happened before the lock
    auto guard = p.lock(kBoundLock);
    const auto best = p.view(best_);
    const std::int32_t shared = best.get(0);
    if (total < shared) {
      const auto tour = best.write_span(0, path.size() + 1);
      tour[0] = total;
      std::ranges::copy(path, tour.begin() + 1);
      p.charge(kRecordOps * static_cast<double>(path.size()));
      l.best = total;
    } else {
      l.best = shared;
    }
  }

  int cities_;
  int threshold_;
  std::size_t pool_size_;
  emu::Duration backoff_;
  tsp::Instance instance_;
  std::vector<Local> local_;
  dsm::SharedArray<std::int32_t> distance_;
  dsm::SharedArray<TourRecord> pool_;
  dsm::SharedArray<std::int32_t> queue_;
  dsm::SharedArray<std::int64_t> heap_;
  dsm::SharedArray<std::int32_t> free_;
  dsm::SharedArray<std::int32_t> best_;
};

}  // namespace

Workload tsp_workload() {
  Workload w;
  w.name = "tsp";
  w.description =
      "travelling salesman by branch and bound: a lock-protected priority queue of partial tours and a "
      "lock-protected best length";
  w.parameters = {
      int_param("cities", 12, "cities, drawn from the seed on a 1000 x 1000 grid", 3, tsp::kMaxCities),
      int_param("threshold", 8,
                "a tour with at most this many cities left is solved locally by depth-first search", 1,
                tsp::kMaxCities),
      int_param("pool", 1024, "partial tours the shared pool holds (when full, children are solved locally)",
                1, 1 << 20),
      real_param("backoff_us", 20.0,
                 "wait before looking again at an empty queue while others still work, in us", 0.1, 1e6),
  };
  w.presets = {
      {"small", {{"cities", std::int64_t{10}}, {"threshold", std::int64_t{7}}}},
      {"paper", {{"cities", std::int64_t{19}}, {"threshold", std::int64_t{16}}}},
  };
  w.validate = [](const Params& params, int /*nodes*/) {
    if (params.integer("threshold") >= params.integer("cities"))
      throw WorkloadError(fmt::format(
          "tsp: threshold={} must be below cities={} (otherwise the root tour is solved by one node alone)",
          params.integer("threshold"), params.integer("cities")));
  };
  w.make = [](const Params& params, int nodes, std::uint64_t seed) {
    return std::make_unique<Tsp>(params, nodes, seed);
  };
  return w;
}

}  // namespace ncp2::workloads
