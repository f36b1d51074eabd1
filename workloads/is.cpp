// is: the NAS Integer Sort kernel (bucket ranking), written from the benchmark's description. N
// keys in [0, max_key), each the average of four seeded uniform numbers scaled to max_key (NAS's
// bell-shaped distribution). Each of `iterations` iterations t = 1, 2, ... first changes two keys
// (key[t] = t, key[t + iterations] = max_key - t, as NAS does), then ranks every key: its rank is
// the number of keys smaller than it. Each node owns a contiguous block of keys and ranks it:
//   count: the node counts its keys into private buckets (one per key value);
//   merge: the counts of all nodes are summed into a shared histogram, either
//     - lock:   the histogram is split into one chunk per node, each under its own lock; every node
//               adds its counts chunk by chunk, starting with its own chunk so that the nodes
//               start on different locks; the first to arrive in an iteration zeroes the chunk
//               (two histograms alternate, so this iteration's never holds the last one's readers);
//               then a barrier;
//     - phased: every node writes its counts into its row of a shared nodes x max_key matrix;
//               a barrier; every node sums its chunk's columns into the histogram; a barrier;
//   rank:  every node reads the histogram, forms its prefix sums, and writes its keys' ranks.
// Barriers: iterations + 1 (lock) or 2 x iterations + 1 (phased), with the exit barrier.
#include <algorithm>
#include <cstdint>
#include <vector>

#include <fmt/format.h>

#include "carnival/scope.hpp"
#include "workloads/registry.hpp"

namespace ncp2::workloads {
namespace {

constexpr dsm::OpCounts kKeyGenOps{.flops = 8, .int_ops = 40, .stores = 1};  // four seeded numbers
constexpr dsm::OpCounts kCountOps{.int_ops = 2, .loads = 2, .stores = 1};    // ++bucket[key]
constexpr dsm::OpCounts kMergeOps{.int_ops = 2, .loads = 2, .stores = 1, .branches = 1};   // per bucket
constexpr dsm::OpCounts kZeroOps{.int_ops = 1, .stores = 1};                               // per bucket
constexpr dsm::OpCounts kPrefixOps{.int_ops = 2, .loads = 1, .stores = 1, .branches = 1};  // per bucket
constexpr dsm::OpCounts kRankOps{.int_ops = 2, .loads = 2, .stores = 1, .branches = 1};    // per key

class IntegerSort final : public Instance {
 public:
  IntegerSort(const Params& params, int nodes, std::uint64_t seed)
      : n_(static_cast<std::size_t>(params.integer("keys"))),
        max_key_(static_cast<std::size_t>(params.integer("max_key"))),
        iterations_(static_cast<std::size_t>(params.integer("iterations"))),
        phased_(params.text("histogram") == "phased"),
        nodes_(nodes),
        seed_(seed),
        counts_(static_cast<std::size_t>(nodes)) {}

  void run(dsm::Process& p) override {
    allocate(p);
    generate(p);
    for (std::size_t t = 1; t <= iterations_; ++t) {
      CARNIVAL_SCOPE_KIND(p, "iteration", "loop");
      modify(p, t);
      count(p);
      if (phased_)
        merge_phased(p);
      else
        merge_locked(p, t);
      rank(p, t);
    }
  }

  void verify(dsm::Process& p) override {
    if (p.id() != 0) return;
    // The same iterations sequentially: only the last ranking is left in the shared array.
    std::vector<std::int32_t> keys(n_);
    for (std::size_t i = 0; i < n_; ++i) keys[i] = initial(i);
    for (std::size_t t = 1; t <= iterations_; ++t) {
      keys[t] = static_cast<std::int32_t>(t);
      keys[t + iterations_] = static_cast<std::int32_t>(max_key_ - t);
    }
    std::vector<std::int64_t> smaller(max_key_ + 1, 0);
    for (const std::int32_t k : keys) ++smaller[static_cast<std::size_t>(k) + 1];
    for (std::size_t b = 1; b <= max_key_; ++b) smaller[b] += smaller[b - 1];
    const auto shared_keys = p.view(keys_).read_span(0, n_);
    const auto ranks = p.view(ranks_).read_span(0, n_);
    for (std::size_t i = 0; i < n_; ++i) {
      if (shared_keys[i] != keys[i])
        return fail(fmt::format("key[{}] = {}, expected {}", i, shared_keys[i], keys[i]));
      const std::int64_t want = smaller[static_cast<std::size_t>(keys[i])];
      if (ranks[i] != want)
        return fail(fmt::format("rank of key[{}] = {} is {}, expected {} (keys smaller than it)", i, keys[i],
                                ranks[i], want));
    }
    pass(fmt::format("all {} ranks exact after {} iterations ({} histogram)", n_, iterations_,
                     phased_ ? "barrier-phased" : "lock-protected"));
  }

 private:
  [[nodiscard]] std::size_t begin(int id) const { return block_begin(n_, nodes_, id); }
  [[nodiscard]] std::size_t chunk_begin(int c) const { return block_begin(max_key_, nodes_, c); }

  [[nodiscard]] std::int32_t initial(std::size_t i) const {
    double sum = 0;
    for (std::uint64_t k = 0; k < 4; ++k)
      sum += static_cast<double>(seeded(seed_, 4 * i + k) >> 11) * 0x1.0p-53;
    return static_cast<std::int32_t>(
        std::min(max_key_ - 1, static_cast<std::size_t>(sum / 4 * static_cast<double>(max_key_))));
  }

  void allocate(dsm::Process& p) {  // collective
    keys_ = p.alloc<std::int32_t>("is.keys", n_);
    ranks_ = p.alloc<std::int32_t>("is.ranks", n_);
    if (phased_) {
      histogram_ = p.alloc<std::int32_t>("is.histogram", max_key_);
      node_counts_ = p.alloc<std::int32_t>("is.node_counts", max_key_ * static_cast<std::size_t>(nodes_));
    } else {
      histogram_ = p.alloc<std::int32_t>("is.histogram", 2 * max_key_);  // iterations alternate
      chunk_owner_ = p.alloc<std::int32_t>("is.chunk_iteration", 2 * static_cast<std::size_t>(nodes_));
    }
  }

  // Each node draws its own block of keys.
  void generate(dsm::Process& p) const {
    CARNIVAL_SCOPE_KIND(p, "generate keys", "function");
    const std::size_t first = begin(p.id()), count = begin(p.id() + 1) - first;
    const auto keys = p.view(keys_).write_span(first, count);
    for (std::size_t k = 0; k < count; ++k) keys[k] = initial(first + k);
    p.charge(kKeyGenOps * static_cast<double>(count));
  }

  // NAS's two changed keys per iteration, by the nodes that own them.
  void modify(dsm::Process& p, std::size_t t) const {
    const auto keys = p.view(keys_);
    for (const auto& [index, value] : {std::pair{t, t}, std::pair{t + iterations_, max_key_ - t}})
      if (index >= begin(p.id()) && index < begin(p.id() + 1))
        keys.set(index, static_cast<std::int32_t>(value));
  }

  void count(dsm::Process& p) {
    CARNIVAL_SCOPE_KIND(p, "count", "function");
    std::vector<std::int32_t>& counts = counts_[static_cast<std::size_t>(p.id())];
    counts.assign(max_key_, 0);
    const std::size_t first = begin(p.id()), n = begin(p.id() + 1) - first;
    for (const std::int32_t key : p.view(keys_).read_span(first, n)) ++counts[static_cast<std::size_t>(key)];
    p.charge(kZeroOps * static_cast<double>(max_key_) + kCountOps * static_cast<double>(n));
  }

  void merge_locked(dsm::Process& p, std::size_t t) {
    CARNIVAL_SCOPE_KIND(p, "merge under locks", "function");
    const std::vector<std::int32_t>& counts = counts_[static_cast<std::size_t>(p.id())];
    const std::size_t base = (t % 2) * max_key_;
    const auto histogram = p.view(histogram_);
    const auto owner = p.view(chunk_owner_);
    for (int k = 0; k < nodes_; ++k) {
      CARNIVAL_SCOPE_KIND(p, "chunk", "loop");
      const int c = (p.id() + k) % nodes_;
      const std::size_t lo = chunk_begin(c), size = chunk_begin(c + 1) - lo;
      auto guard = p.lock(static_cast<std::uint32_t>(c));
      const std::size_t word = (t % 2) * static_cast<std::size_t>(nodes_) + static_cast<std::size_t>(c);
      const auto h = histogram.write_span(base + lo, size);
      if (owner.get(word) != static_cast<std::int32_t>(t)) {  // first in this iteration: start from zero
        owner.set(word, static_cast<std::int32_t>(t));
        std::ranges::fill(h, 0);
        p.charge(kZeroOps * static_cast<double>(size));
      }
      for (std::size_t b = 0; b < size; ++b) h[b] += counts[lo + b];
      p.charge(kMergeOps * static_cast<double>(size));
    }
    p.barrier(0);  // every node's counts are in
  }

  void merge_phased(dsm::Process& p) {
    CARNIVAL_SCOPE_KIND(p, "merge by phases", "function");
    const std::vector<std::int32_t>& counts = counts_[static_cast<std::size_t>(p.id())];
    const auto rows = p.view(node_counts_);
    std::ranges::copy(counts, rows.write_span(static_cast<std::size_t>(p.id()) * max_key_, max_key_).begin());
    p.charge(kZeroOps * static_cast<double>(max_key_));
    p.barrier(0);  // every node's row is written
    const std::size_t lo = chunk_begin(p.id()), size = chunk_begin(p.id() + 1) - lo;
    const auto h = p.view(histogram_).write_span(lo, size);
    std::ranges::fill(h, 0);
    for (int node = 0; node < nodes_; ++node) {
      const auto row = rows.read_span(static_cast<std::size_t>(node) * max_key_ + lo, size);
      for (std::size_t b = 0; b < size; ++b) h[b] += row[b];
    }
    p.charge(kMergeOps * static_cast<double>(size) * nodes_);
    p.barrier(1);  // the histogram is complete
  }

  void rank(dsm::Process& p, std::size_t t) {
    CARNIVAL_SCOPE_KIND(p, "rank", "function");
    const std::size_t base = phased_ ? 0 : (t % 2) * max_key_;
    const auto histogram = p.view(histogram_).read_span(base, max_key_);
    std::vector<std::int32_t>& smaller = counts_[static_cast<std::size_t>(p.id())];  // reused
    std::int32_t running = 0;
    for (std::size_t b = 0; b < max_key_; ++b) {
      smaller[b] = running;
      running += histogram[b];
    }
    const std::size_t first = begin(p.id()), n = begin(p.id() + 1) - first;
    const auto keys = p.view(keys_).read_span(first, n);
    const auto ranks = p.view(ranks_).write_span(first, n);
    for (std::size_t k = 0; k < n; ++k) ranks[k] = smaller[static_cast<std::size_t>(keys[k])];
    p.charge(kPrefixOps * static_cast<double>(max_key_) + kRankOps * static_cast<double>(n));
  }

  std::size_t n_;
  std::size_t max_key_;
  std::size_t iterations_;
  bool phased_;
  int nodes_;
  std::uint64_t seed_;
  std::vector<std::vector<std::int32_t>> counts_;  // per node: its bucket counts, then prefix sums
  dsm::SharedArray<std::int32_t> keys_, ranks_, histogram_, node_counts_, chunk_owner_;
};

}  // namespace

Workload is_workload() {
  Workload w;
  w.name = "is";
  w.description =
      "NAS integer sort: keys counted into private buckets, merged into a shared histogram (per-chunk locks "
      "or "
      "barrier phases), ranked";
  w.parameters = {
      int_param("keys", 65536, "keys to rank (int32)", 1, 1 << 24),
      int_param("max_key", 2048, "keys lie in [0, max_key): one bucket per value", 2, 1 << 20),
      int_param("iterations", 10, "rankings, each after changing two keys (NAS: 10)", 1, 1000),
      text_param("histogram", "lock",
                 "how the counts are merged: lock (per-chunk locks) or phased (barriers)",
                 {"lock", "phased"}),
  };
  w.presets = {
      {"small",
       {{"keys", std::int64_t{1} << 14},
        {"max_key", std::int64_t{1} << 10},
        {"iterations", std::int64_t{4}}}},
      {"paper",
       {{"keys", std::int64_t{1} << 20},
        {"max_key", std::int64_t{1} << 16},
        {"iterations", std::int64_t{10}}}},
  };
  w.validate = [](const Params& params, int nodes) {
    const std::int64_t keys = params.integer("keys"), max_key = params.integer("max_key"),
                       iterations = params.integer("iterations");
    if (keys < nodes)
      throw WorkloadError(fmt::format("is needs at least one key per node: keys={} < nodes={}", keys, nodes));
    if (max_key < nodes)
      throw WorkloadError(
          fmt::format("is needs at least one bucket per node (a histogram chunk each): max_key={} < nodes={}",
                      max_key, nodes));
    if (keys <= 2 * iterations)
      throw WorkloadError(
          fmt::format("is changes keys 1..iterations and iterations+1..2 x iterations: keys={} must exceed 2 "
                      "x iterations={}",
                      keys, 2 * iterations));
    if (max_key <= iterations)
      throw WorkloadError(fmt::format(
          "is sets a key to max_key - iteration: max_key={} must exceed iterations={}", max_key, iterations));
  };
  w.make = [](const Params& params, int nodes, std::uint64_t seed) {
    return std::make_unique<IntegerSort>(params, nodes, seed);
  };
  return w;
}

}  // namespace ncp2::workloads
