// false-sharing: several writers per page. An array of `n` int32 is interleaved over the nodes
// (element i belongs to node i % nodes), so every page has up to `nodes` concurrent writers and
// the multiple-writer protocol (twins and diffs) does all the work. Each round:
//   write: every node updates its own elements, from their previous value and the last round's sum;
//   barrier;
//   read:  every node sums the whole array and stores its sum in sums[round][node];
//   barrier.
// Barriers: 2 x rounds, plus the exit barrier.
#include <cstdint>
#include <vector>

#include <fmt/format.h>

#include "carnival/scope.hpp"
#include "workloads/registry.hpp"

namespace ncp2::workloads {
namespace {

constexpr std::size_t kElementsPerCharge =
    1024;  // elements charged per compute step (one 4 KB page of int32)

class FalseSharing final : public Instance {
 public:
  FalseSharing(const Params& params, int nodes, std::uint64_t seed)
      : n_(static_cast<std::size_t>(params.integer("n"))),
        rounds_(params.integer("rounds")),
        cycles_(params.integer("cycles")),
        nodes_(nodes),
        seed_(seed),
        last_sum_(static_cast<std::size_t>(nodes), 0) {}

  void run(dsm::Process& p) override {
    allocate(p);
    for (std::int64_t r = 1; r <= rounds_; ++r) {
      CARNIVAL_SCOPE_KIND(p, "round", "loop");
      write_own(p, r);
      p.barrier(0);
      read_all(p, r);
      p.barrier(0);
    }
  }

  void verify(dsm::Process& p) override {
    if (p.id() != 0) return;
    std::vector<std::int64_t> expected_sums;
    const std::vector<std::int32_t> expected = sequential(expected_sums);
    const auto a = p.view(array_);
    const auto sums = p.view(sums_);
    for (std::int64_t r = 1; r <= rounds_; ++r) {
      for (int node = 0; node < nodes_; ++node) {
        const std::int64_t got = sums.get(sum_index(r, node));
        const std::int64_t want = expected_sums[static_cast<std::size_t>(r - 1)];
        if (got != want)
          return fail(fmt::format("round {}: node {} summed {}, expected {}", r, node, got, want));
      }
    }
    std::size_t wrong = 0;
    std::size_t first = 0;
    for (std::size_t i = 0; i < n_; ++i) {
      if (a.get(i) != expected[i] && wrong++ == 0) first = i;
    }
    if (wrong != 0)
      return fail(fmt::format("{} of {} elements differ after {} rounds; first: a[{}] = {}, expected {}",
                              wrong, n_, rounds_, first, a.get(first), expected[first]));
    pass(fmt::format("all {} elements and the {} x {} per-round sums match the sequential computation", n_,
                     rounds_, nodes_));
  }

 private:
  [[nodiscard]] std::int32_t initial(std::size_t i) const {
    return static_cast<std::int32_t>(static_cast<std::uint32_t>(seeded(seed_, i)));
  }

  // Round r's new value of an element from its previous value and the previous round's sum.
  static std::int32_t next(std::int32_t value, std::int64_t r, std::int64_t previous_sum, std::size_t i) {
    const std::uint32_t v = static_cast<std::uint32_t>(value) * 2654435761u + static_cast<std::uint32_t>(r) +
                            static_cast<std::uint32_t>(previous_sum) + static_cast<std::uint32_t>(i);
    return static_cast<std::int32_t>(v);
  }

  [[nodiscard]] std::size_t sum_index(std::int64_t r, int node) const {
    return static_cast<std::size_t>(r - 1) * static_cast<std::size_t>(nodes_) +
           static_cast<std::size_t>(node);
  }

  // Collective: the interleaved array and the per-round, per-node sums.
  void allocate(dsm::Process& p) {
    array_ = p.alloc<std::int32_t>("false_sharing.a", n_);
    sums_ = p.alloc<std::int64_t>("false_sharing.sums",
                                  static_cast<std::size_t>(rounds_) * static_cast<std::size_t>(nodes_));
  }

  // This node's elements i = id, id + nodes, ... (round 1 starts from the seeded initial values).
  void write_own(dsm::Process& p, std::int64_t r) const {
    CARNIVAL_SCOPE_KIND(p, "write own", "function");
    const auto a = p.view(array_);
    const auto stride = static_cast<std::size_t>(nodes_);
    const std::int64_t previous_sum = last_sum_[static_cast<std::size_t>(p.id())];
    std::int64_t pending = 0;
    for (auto i = static_cast<std::size_t>(p.id()); i < n_; i += stride) {
      const std::int32_t old = r == 1 ? initial(i) : a.get(i);
      a.set(i, next(old, r, previous_sum, i));
      if (++pending == static_cast<std::int64_t>(kElementsPerCharge)) {
        p.compute_cycles(cycles_ * pending);
        pending = 0;
      }
    }
    if (pending != 0) p.compute_cycles(cycles_ * pending);
  }

  // Sums the whole array (every other node's writes arrive as diffs) and publishes the sum.
  void read_all(dsm::Process& p, std::int64_t r) {
    CARNIVAL_SCOPE_KIND(p, "read all", "function");
    const auto a = p.view(array_);
    std::int64_t sum = 0;
    for (std::size_t lo = 0; lo < n_; lo += kElementsPerCharge) {
      const std::size_t hi = std::min(n_, lo + kElementsPerCharge);
      for (const std::int32_t v : a.read_span(lo, hi - lo)) sum += v;  // faults the chunk's pages in first
      p.compute_cycles(cycles_ * static_cast<std::int64_t>(hi - lo));
    }
    last_sum_[static_cast<std::size_t>(p.id())] = sum;
    p.view(sums_).set(sum_index(r, p.id()), sum);
  }

  // The same computation, natively and sequentially; `sums` gets the sum of each round.
  [[nodiscard]] std::vector<std::int32_t> sequential(std::vector<std::int64_t>& sums) const {
    std::vector<std::int32_t> a(n_);
    std::int64_t previous_sum = 0;
    for (std::int64_t r = 1; r <= rounds_; ++r) {
      std::int64_t sum = 0;
      for (std::size_t i = 0; i < n_; ++i) {
        a[i] = next(r == 1 ? initial(i) : a[i], r, previous_sum, i);
        sum += a[i];
      }
      sums.push_back(sum);
      previous_sum = sum;
    }
    return a;
  }

  std::size_t n_;
  std::int64_t rounds_;
  std::int64_t cycles_;
  int nodes_;
  std::uint64_t seed_;
  std::vector<std::int64_t> last_sum_;  // per node: its sum of the previous round (private data)
  dsm::SharedArray<std::int32_t> array_;
  dsm::SharedArray<std::int64_t> sums_;
};

}  // namespace

Workload false_sharing_workload() {
  Workload w;
  w.name = "false-sharing";
  w.description = "interleaved array: every page has several writers; rounds of write-own, barrier, read-all";
  w.parameters = {
      int_param("n", 8192, "elements (int32); element i belongs to node i % nodes", 1, 1 << 24),
      int_param("rounds", 4, "write/read rounds (barrier episodes: 2 x rounds + 1 with the exit barrier)", 1,
                100'000),
      int_param("cycles", 20, "PP cycles charged per element written or read", 0, 1'000'000),
  };
  w.presets = {
      {"small", {{"n", std::int64_t{2048}}, {"rounds", std::int64_t{3}}}},
      {"paper", {{"n", std::int64_t{65536}}, {"rounds", std::int64_t{10}}}},
  };
  w.validate = [](const Params& params, int nodes) {
    if (params.integer("n") < nodes)
      throw WorkloadError(fmt::format("false-sharing needs at least one element per node: n={} < nodes={}",
                                      params.integer("n"), nodes));
    if (params.integer("rounds") * nodes > (std::int64_t{1} << 26))
      throw WorkloadError(
          fmt::format("false-sharing: rounds x nodes = {} per-round sums is too many (at most {})",
                      params.integer("rounds") * nodes, std::int64_t{1} << 26));
  };
  w.make = [](const Params& params, int nodes, std::uint64_t seed) {
    return std::make_unique<FalseSharing>(params, nodes, seed);
  };
  return w;
}

}  // namespace ncp2::workloads
