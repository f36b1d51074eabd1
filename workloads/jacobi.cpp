// jacobi: Jacobi relaxation of a rows x cols grid of floats, TreadMarks style (written here from
// the algorithm). The edges are fixed; the interior rows are split into one contiguous band per
// node. Each iteration has two phases separated by barriers:
//   compute: every node computes the new value of each point of its band, the mean of its four
//            neighbours in the shared grid, into a private scratch band;
//   barrier;
//   update:  every node copies its scratch band into the shared grid;
//   barrier.
// Sharing: the rows just above and below a band are read from the neighbouring nodes (whole
// rows by diffs). Jacobi's new values depend only on the old grid, so the result is
// bit-identical to the sequential iteration. Barriers: 1 after the initialization + 2 per
// iteration + the exit barrier.
#include <algorithm>
#include <bit>
#include <cstdint>
#include <vector>

#include <fmt/format.h>

#include "carnival/scope.hpp"
#include "workloads/registry.hpp"

namespace ncp2::workloads {
namespace {

// A point: 3 adds and a multiply; 4 loads and a store into the scratch row; loop overhead.
constexpr dsm::OpCounts kJacobiOpsPerPoint{.flops = 4, .int_ops = 1, .loads = 4, .stores = 1, .branches = 1};
// Copying a point back, or initializing it.
constexpr dsm::OpCounts kPerCopy{.flops = 0, .int_ops = 1, .loads = 1, .stores = 1, .branches = 1};
constexpr std::size_t kJacobiChargePoints = 4096;  // points per charge (a few pages), see sor.cpp

struct JacobiProblem {
  std::size_t rows = 0;
  std::size_t cols = 0;
  std::int64_t iterations = 0;
};

float initial(const JacobiProblem& g, std::uint64_t seed, std::size_t r, std::size_t c) {
  if (r == 0) return 1.0F;  // the hot top edge
  if (c == 0 || r + 1 == g.rows || c + 1 == g.cols) return 0.0F;
  return static_cast<float>(seeded(seed, r * g.cols + c) >> 40) * 0x1p-24F;  // exact, in [0, 1)
}

// The new interior values of row r (columns 1 .. cols-2) into out[1 .. cols-2]. Shared by the
// emulated run and the sequential reference.
void relax_row(const float* above, const float* row, const float* below, float* out, std::size_t cols) {
  for (std::size_t c = 1; c + 1 < cols; ++c)
    out[c] = 0.25F * ((above[c] + below[c]) + (row[c - 1] + row[c + 1]));
}

std::vector<float> sequential(const JacobiProblem& g, std::uint64_t seed) {
  std::vector<float> grid(g.rows * g.cols);
  for (std::size_t r = 0; r < g.rows; ++r)
    for (std::size_t c = 0; c < g.cols; ++c) grid[r * g.cols + c] = initial(g, seed, r, c);
  std::vector<float> next = grid;
  for (std::int64_t it = 0; it < g.iterations; ++it) {
    for (std::size_t r = 1; r + 1 < g.rows; ++r)
      relax_row(&grid[(r - 1) * g.cols], &grid[r * g.cols], &grid[(r + 1) * g.cols], &next[r * g.cols],
                g.cols);
    grid.swap(next);
  }
  return grid;
}

class Jacobi final : public Instance {
 public:
  Jacobi(const JacobiProblem& problem, int nodes, std::uint64_t seed)
      : g_(problem), nodes_(nodes), seed_(seed), scratch_(static_cast<std::size_t>(nodes)) {}

  void run(dsm::Process& p) override {
    allocate(p);
    initialize(p);
    p.barrier(0);
    for (std::int64_t it = 0; it < g_.iterations; ++it) {
      CARNIVAL_SCOPE_KIND(p, "iteration", "loop");
      compute(p);
      p.barrier(0);
      update(p);
      p.barrier(0);
    }
  }

  void verify(dsm::Process& p) override {
    if (p.id() != 0) return;
    const std::vector<float> expected = sequential(g_, seed_);
    const std::span<const float> got = p.view(grid_).read_span(0, expected.size());
    std::size_t wrong = 0;
    std::size_t first = 0;
    for (std::size_t i = 0; i < expected.size(); ++i)
      if (std::bit_cast<std::uint32_t>(got[i]) != std::bit_cast<std::uint32_t>(expected[i]) && wrong++ == 0)
        first = i;
    if (wrong != 0)
      return fail(fmt::format(
          "{} of {} points differ from the sequential iteration; first ({}, {}) = {}, expected {}", wrong,
          expected.size(), first / g_.cols, first % g_.cols, got[first], expected[first]));
    pass(fmt::format("all {}x{} points bit-identical to {} sequential Jacobi iterations", g_.rows, g_.cols,
                     g_.iterations));
  }

 private:
  [[nodiscard]] std::size_t first_row(int id) const { return 1 + block_begin(g_.rows - 2, nodes_, id); }

  void allocate(dsm::Process& p) {
    grid_ = p.alloc<float>("jacobi.grid", g_.rows * g_.cols);
    const std::size_t band = first_row(p.id() + 1) - first_row(p.id());
    scratch_[static_cast<std::size_t>(p.id())].assign(band * g_.cols, 0.0F);  // private to the node
  }

  // Every node writes its band (node 0 also the top edge, the last node the bottom edge).
  void initialize(dsm::Process& p) const {
    CARNIVAL_SCOPE_KIND(p, "initialize", "function");
    const std::size_t begin = p.id() == 0 ? 0 : first_row(p.id());
    const std::size_t end = p.id() + 1 == nodes_ ? g_.rows : first_row(p.id() + 1);
    const std::span<float> rows = p.view(grid_).write_span(begin * g_.cols, (end - begin) * g_.cols);
    for (std::size_t r = begin; r < end; ++r)
      for (std::size_t c = 0; c < g_.cols; ++c) rows[(r - begin) * g_.cols + c] = initial(g_, seed_, r, c);
    p.charge(kPerCopy * static_cast<double>(rows.size()));
  }

  // New values of this node's band into its private scratch band.
  void compute(dsm::Process& p) {
    CARNIVAL_SCOPE_KIND(p, "compute", "function");
    const std::size_t cols = g_.cols;
    const std::size_t begin = first_row(p.id());
    const std::size_t end = first_row(p.id() + 1);
    const auto grid = p.view(grid_);
    float* out = scratch_[static_cast<std::size_t>(p.id())].data();
    const std::size_t rows_per_charge = std::max<std::size_t>(1, kJacobiChargePoints / cols);
    for (std::size_t chunk = begin; chunk < end; chunk += rows_per_charge) {
      const std::size_t chunk_end = std::min(end, chunk + rows_per_charge);
      // The rows of the chunk and one on each side: the first and last come from the neighbours.
      const float* rows = grid.read_span((chunk - 1) * cols, (chunk_end - chunk + 2) * cols).data();
      for (std::size_t r = chunk; r < chunk_end; ++r) {
        const float* above = rows + (r - chunk) * cols;
        relax_row(above, above + cols, above + 2 * cols, out + (r - begin) * cols, cols);
      }
      p.charge(kJacobiOpsPerPoint * static_cast<double>((chunk_end - chunk) * (cols - 2)));
    }
  }

  // The scratch band into the shared grid (interior columns only: the edge columns are fixed).
  void update(dsm::Process& p) {
    CARNIVAL_SCOPE_KIND(p, "update", "function");
    const std::size_t cols = g_.cols;
    const std::size_t begin = first_row(p.id());
    const std::size_t end = first_row(p.id() + 1);
    const float* in = scratch_[static_cast<std::size_t>(p.id())].data();
    const std::span<float> band = p.view(grid_).write_span(begin * cols, (end - begin) * cols);
    for (std::size_t r = 0; r < end - begin; ++r)
      std::copy(in + r * cols + 1, in + r * cols + cols - 1, band.data() + r * cols + 1);
    p.charge(kPerCopy * static_cast<double>((end - begin) * (cols - 2)));
  }

  JacobiProblem g_;
  int nodes_;
  std::uint64_t seed_;
  std::vector<std::vector<float>> scratch_;  // per node, private
  dsm::SharedArray<float> grid_;
};

}  // namespace

Workload jacobi_workload() {
  Workload w;
  w.name = "jacobi";
  w.description =
      "Jacobi relaxation of a float grid, a band of rows per node: new values into a private band, "
      "a barrier, copied back into the shared grid, a barrier";
  w.parameters = {
      int_param("rows", 256, "grid rows, the two fixed edge rows included", 3, 1 << 16),
      int_param("cols", 256, "grid columns (floats per row), the two fixed edge columns included", 3,
                1 << 16),
      int_param("iterations", 10, "Jacobi iterations (2 barriers each)", 1, 100'000),
  };
  // paper: a 1024 x 1024 float grid, 100 iterations: our choice (the TreadMarks papers' Jacobi
  // input is not in this repository's sources).
  w.presets = {
      {"small", {{"rows", std::int64_t{130}}, {"cols", std::int64_t{128}}, {"iterations", std::int64_t{4}}}},
      {"paper",
       {{"rows", std::int64_t{1024}}, {"cols", std::int64_t{1024}}, {"iterations", std::int64_t{100}}}},
  };
  w.validate = [](const Params& params, int nodes) {
    const std::int64_t interior_rows = params.integer("rows") - 2;
    if (interior_rows < nodes)
      throw WorkloadError(fmt::format(
          "jacobi needs at least one interior row per node: rows={} has {} interior rows < nodes={}",
          params.integer("rows"), interior_rows, nodes));
    if (params.integer("rows") * params.integer("cols") > (std::int64_t{1} << 28))
      throw WorkloadError(fmt::format("jacobi grid too large: rows x cols = {} x {} > 2^28 points",
                                      params.integer("rows"), params.integer("cols")));
  };
  w.make = [](const Params& params, int nodes, std::uint64_t seed) {
    return std::make_unique<Jacobi>(JacobiProblem{.rows = static_cast<std::size_t>(params.integer("rows")),
                                                  .cols = static_cast<std::size_t>(params.integer("cols")),
                                                  .iterations = params.integer("iterations")},
                                    nodes, seed);
  };
  return w;
}

}  // namespace ncp2::workloads
