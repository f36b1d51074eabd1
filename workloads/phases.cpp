// phases: a barrier-phased array update. Two shared arrays of `n` int64 alternate as source and
// destination; each node owns a contiguous block. In phase k every node updates its block,
//   dst[i] = step(src[i], src[neighbor(i, k)], k),
// where neighbor(i, k) lies in another node's block (a different one each phase), so the pages
// written by other nodes in the previous phase move to the reader. A barrier separates phases.
// Barriers: one after the initialization, one between consecutive phases, then the exit barrier:
// phases + 1 episodes in all.
#include <array>
#include <bit>
#include <cstdint>
#include <vector>

#include <fmt/format.h>

#include "carnival/scope.hpp"
#include "workloads/registry.hpp"

namespace ncp2::workloads {
namespace {

constexpr std::size_t kPhaseElementsPerCharge =
    512;  // elements charged per compute step (one 4 KB page of int64)

class Phases final : public Instance {
 public:
  Phases(const Params& params, int nodes, std::uint64_t seed)
      : n_(static_cast<std::size_t>(params.integer("n"))),
        phases_(params.integer("phases")),
        cycles_(params.integer("cycles")),
        nodes_(nodes),
        seed_(seed) {}

  void run(dsm::Process& p) override {
    allocate(p);
    initialize(p);
    p.barrier(0);
    for (std::int64_t k = 1; k <= phases_; ++k) {
      CARNIVAL_SCOPE_KIND(p, "phase loop", "loop");
      update(p, k);
      if (k < phases_) p.barrier(0);
    }
  }

  void verify(dsm::Process& p) override {
    if (p.id() != 0) return;
    const std::vector<std::int64_t> expected = sequential();
    const auto result = p.view(buffer_[static_cast<std::size_t>(phases_ % 2)]);
    std::size_t wrong = 0;
    std::size_t first = 0;
    for (std::size_t i = 0; i < n_; ++i) {
      if (result.get(i) != expected[i] && wrong++ == 0) first = i;
    }
    if (wrong != 0)
      return fail(fmt::format("{} of {} elements differ after {} phases; first: a[{}] = {}, expected {}",
                              wrong, n_, phases_, first, result.get(first), expected[first]));
    pass(fmt::format("all {} elements match the sequential computation after {} phases", n_, phases_));
  }

 private:
  [[nodiscard]] std::int64_t initial(std::size_t i) const {
    return static_cast<std::int64_t>(seeded(seed_, i));
  }

  static std::int64_t step(std::int64_t own, std::int64_t other, std::int64_t k) {
    const auto x = static_cast<std::uint64_t>(own);
    const auto y = static_cast<std::uint64_t>(other);
    return static_cast<std::int64_t>((std::rotl(x, 7) ^ (y * 0x9E3779B97F4A7C15ULL)) +
                                     static_cast<std::uint64_t>(k));
  }

  // In another node's block: the block `1 + (k-1) mod (nodes-1)` places further on, plus k.
  [[nodiscard]] std::size_t neighbor(std::size_t i, std::int64_t k) const {
    const auto uk = static_cast<std::size_t>(k);
    const auto nodes = static_cast<std::size_t>(nodes_);
    const std::size_t offset = nodes > 1 ? (n_ / nodes) * (1 + (uk - 1) % (nodes - 1)) + uk : uk;
    return (i + offset) % n_;
  }

  // Collective: the two buffers.
  void allocate(dsm::Process& p) {
    buffer_[0] = p.alloc<std::int64_t>("phases.a0", n_);
    buffer_[1] = p.alloc<std::int64_t>("phases.a1", n_);
  }

  // Each node writes the initial values of its own block of a0.
  void initialize(dsm::Process& p) const {
    CARNIVAL_SCOPE_KIND(p, "initialize", "function");
    const auto a = p.view(buffer_[0]);
    const std::size_t begin = block_begin(n_, nodes_, p.id());
    const std::size_t end = block_begin(n_, nodes_, p.id() + 1);
    for (std::size_t lo = begin; lo < end; lo += kPhaseElementsPerCharge) {
      const std::size_t hi = std::min(end, lo + kPhaseElementsPerCharge);
      for (std::size_t i = lo; i < hi; ++i) a.set(i, initial(i));
      p.compute_cycles(cycles_ * static_cast<std::int64_t>(hi - lo));
    }
  }

  // Phase k: this node's block of dst from src, reading other nodes' blocks of src.
  void update(dsm::Process& p, std::int64_t k) const {
    CARNIVAL_SCOPE_KIND(p, "update", "function");
    const auto src = p.view(buffer_[static_cast<std::size_t>((k - 1) % 2)]);
    const auto dst = p.view(buffer_[static_cast<std::size_t>(k % 2)]);
    const std::size_t begin = block_begin(n_, nodes_, p.id());
    const std::size_t end = block_begin(n_, nodes_, p.id() + 1);
    for (std::size_t lo = begin; lo < end; lo += kPhaseElementsPerCharge) {
      const std::size_t hi = std::min(end, lo + kPhaseElementsPerCharge);
      for (std::size_t i = lo; i < hi; ++i) dst.set(i, step(src.get(i), src.get(neighbor(i, k)), k));
      p.compute_cycles(cycles_ * static_cast<std::int64_t>(hi - lo));
    }
  }

  // The same computation, natively and sequentially.
  [[nodiscard]] std::vector<std::int64_t> sequential() const {
    std::vector<std::int64_t> a(n_), b(n_);
    for (std::size_t i = 0; i < n_; ++i) a[i] = initial(i);
    for (std::int64_t k = 1; k <= phases_; ++k) {
      for (std::size_t i = 0; i < n_; ++i) b[i] = step(a[i], a[neighbor(i, k)], k);
      a.swap(b);
    }
    return a;
  }

  std::size_t n_;
  std::int64_t phases_;
  std::int64_t cycles_;
  int nodes_;
  std::uint64_t seed_;
  std::array<dsm::SharedArray<std::int64_t>, 2> buffer_;
};

}  // namespace

Workload phases_workload() {
  Workload w;
  w.name = "phases";
  w.description = "barrier-phased update of a block-distributed array; each phase reads other nodes' blocks";
  w.parameters = {
      int_param("n", 16384, "elements (int64) of each of the two arrays", 1, 1 << 24),
      int_param("phases", 8, "update phases (barrier episodes: phases + 1 with the exit barrier)", 1,
                100'000),
      int_param("cycles", 40, "PP cycles charged per element initialized or updated", 0, 1'000'000),
  };
  w.presets = {
      {"small", {{"n", std::int64_t{2048}}, {"phases", std::int64_t{4}}}},
      {"paper", {{"n", std::int64_t{262144}}, {"phases", std::int64_t{16}}}},
  };
  w.validate = [](const Params& params, int nodes) {
    if (params.integer("n") < nodes)
      throw WorkloadError(fmt::format("phases needs at least one element per node: n={} < nodes={}",
                                      params.integer("n"), nodes));
  };
  w.make = [](const Params& params, int nodes, std::uint64_t seed) {
    return std::make_unique<Phases>(params, nodes, seed);
  };
  return w;
}

}  // namespace ncp2::workloads
