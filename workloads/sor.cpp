// sor: red-black successive over-relaxation on a rows x cols grid of floats (the TreadMarks SOR
// benchmark, written here from the algorithm). The edges are fixed; the interior rows are split
// into one contiguous band per node. As in the TreadMarks program, the red points (r + c even)
// and the black points are kept in two separate rows x cols/2 arrays, so a half sweep writes
// whole rows of one array (contiguous, whole-page diffs) instead of every other word. Each
// iteration relaxes the red points of every band, a barrier, then the black points, a barrier: a
// point of one colour is computed from its four neighbours, all of the other colour, so within a
// half sweep the order of the updates does not matter and the result is bit-identical to a
// sequential sweep. Sharing: only the rows at the bands' edges move between neighbouring nodes
// (by diffs after the first iteration).
//   interior=nonzero: the interior starts at seeded values in [0, 1), every point changes every
//                     iteration, so every diff carries a whole row of a colour.
//   interior=zero:    the interior starts at 0 and the edges at 1 (SC'95's "SOR-Zero"): only the
//                     points the edge values have reached change, so the diffs are small.
// Barriers: 1 after the initialization + 2 per iteration + the exit barrier.
#include "workloads/sor.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <vector>

#include <fmt/format.h>

#include "carnival/scope.hpp"
#include "workloads/registry.hpp"

namespace ncp2::workloads {

float sor_initial(const SorProblem& problem, std::uint64_t seed, std::size_t r, std::size_t c) {
  const bool edge = r == 0 || c == 0 || r + 1 == problem.rows || c + 1 == problem.cols;
  if (edge) return 1.0F;
  if (problem.zero_interior) return 0.0F;
  // 24 random bits: an exact float in [0, 1).
  return static_cast<float>(seeded(seed, r * problem.cols + c) >> 40) * 0x1p-24F;
}

namespace {

// The half sweep of one colour row, with the offset of the left neighbour in `side` fixed (P is
// the row's parity): a contiguous loop the compiler vectorizes.
template <std::size_t P>
std::size_t relax(const float* __restrict above, float* __restrict row, const float* __restrict below,
                  const float* __restrict side, std::size_t cols, float omega) {
  const float keep = 1.0F - omega;
  const float quarter_omega = 0.25F * omega;
  const std::size_t first = P == 0 ? 1 : 0;  // element 0 of an even-parity row is column 0, an edge
  const std::size_t end = (cols - P) / 2;    // the last element of an odd-parity row is column cols-1
  for (std::size_t k = first; k < end; ++k)
    row[k] = keep * row[k] + quarter_omega * ((above[k] + below[k]) + (side[k + P - 1] + side[k + P]));
  return end - first;
}

}  // namespace

std::size_t sor_relax_row(const float* above, float* row, const float* below, const float* side,
                          std::size_t cols, std::size_t r, int color, float omega) {
  return sor_parity(r, color) == 0 ? relax<0>(above, row, below, side, cols, omega)
                                   : relax<1>(above, row, below, side, cols, omega);
}

std::vector<float> sor_sequential(const SorProblem& problem, std::uint64_t seed) {
  const std::size_t rows = problem.rows;
  const std::size_t cols = problem.cols;
  const std::size_t half = cols / 2;
  std::array<std::vector<float>, 2> colour = {std::vector<float>(rows * half),
                                              std::vector<float>(rows * half)};
  for (std::size_t r = 0; r < rows; ++r)
    for (std::size_t c = 0; c < cols; ++c)
      colour[(r + c) & 1U][r * half + c / 2] = sor_initial(problem, seed, r, c);
  for (std::int64_t it = 0; it < problem.iterations; ++it)
    for (int color = 0; color < 2; ++color) {
      float* mine = colour[color].data();
      const float* other = colour[1 - color].data();
      for (std::size_t r = 1; r + 1 < rows; ++r)
        sor_relax_row(other + (r - 1) * half, mine + r * half, other + (r + 1) * half, other + r * half, cols,
                      r, color, problem.omega);
    }
  std::vector<float> grid(rows * cols);
  for (std::size_t r = 0; r < rows; ++r)
    for (std::size_t c = 0; c < cols; ++c) grid[r * cols + c] = colour[(r + c) & 1U][r * half + c / 2];
  return grid;
}

namespace {

// Operations of one point update: 3 adds + 2 multiplies + 1 add; 5 loads, 1 store; the loop's
// index arithmetic and branch.
constexpr dsm::OpCounts kPerPoint{.flops = 6, .int_ops = 1, .loads = 5, .stores = 1, .branches = 1};
// Points written by the initialization: a store and the loop.
constexpr dsm::OpCounts kPerInitPoint{.flops = 0, .int_ops = 2, .loads = 0, .stores = 1, .branches = 1};
// Computation is charged every this many points (about four 4 KB pages of floats updated), so
// that faults and protocol interrupts interleave with it as in the real program.
constexpr std::size_t kChargePoints = 4096;

class Sor final : public Instance {
 public:
  Sor(const SorProblem& problem, int nodes, std::uint64_t seed)
      : problem_(problem), nodes_(nodes), seed_(seed) {}

  void run(dsm::Process& p) override {
    allocate(p);
    initialize(p);
    p.barrier(0);
    for (std::int64_t it = 0; it < problem_.iterations; ++it) {
      CARNIVAL_SCOPE_KIND(p, "iteration", "loop");
      {
        CARNIVAL_SCOPE(p, "red half sweep");
        relax(p, 0);
        p.barrier(0);
      }
      {
        CARNIVAL_SCOPE(p, "black half sweep");
        relax(p, 1);
        p.barrier(0);
      }
    }
  }

  void verify(dsm::Process& p) override {
    if (p.id() != 0) return;
    const std::vector<float> expected = sor_sequential(problem_, seed_);
    const std::size_t cols = problem_.cols;
    const std::size_t half = cols / 2;
    const std::array<std::span<const float>, 2> colour = {
        p.view(colour_[0]).read_span(0, problem_.rows * half),
        p.view(colour_[1]).read_span(0, problem_.rows * half)};
    std::size_t wrong = 0;
    std::size_t first = 0;
    for (std::size_t i = 0; i < expected.size(); ++i) {
      const std::size_t r = i / cols, c = i % cols;
      const float got = colour[(r + c) & 1U][r * half + c / 2];
      if (std::bit_cast<std::uint32_t>(got) != std::bit_cast<std::uint32_t>(expected[i]) && wrong++ == 0)
        first = i;
    }
    if (wrong != 0) {
      const std::size_t r = first / cols, c = first % cols;
      return fail(
          fmt::format("{} of {} points differ from the sequential sweeps; first ({}, {}) = {}, expected {}",
                      wrong, expected.size(), r, c, colour[(r + c) & 1U][r * half + c / 2], expected[first]));
    }
    pass(fmt::format("all {}x{} points bit-identical to {} sequential red-black iterations", problem_.rows,
                     cols, problem_.iterations));
  }

 private:
  [[nodiscard]] std::size_t half() const { return problem_.cols / 2; }
  // This node's band of interior rows: [first_row(id), first_row(id + 1)).
  [[nodiscard]] std::size_t first_row(int id) const { return 1 + block_begin(problem_.rows - 2, nodes_, id); }

  void allocate(dsm::Process& p) {
    colour_[0] = p.alloc<float>("sor.red", problem_.rows * half());
    colour_[1] = p.alloc<float>("sor.black", problem_.rows * half());
  }

  // Every node writes its band of both colours (node 0 also the top edge, the last node the
  // bottom edge). With the zero interior only the non-zero points are written: the pages start
  // zeroed.
  void initialize(dsm::Process& p) {
    CARNIVAL_SCOPE_KIND(p, "initialize", "function");
    const std::size_t cols = problem_.cols;
    const std::size_t begin = p.id() == 0 ? 0 : first_row(p.id());
    const std::size_t end = p.id() + 1 == nodes_ ? problem_.rows : first_row(p.id() + 1);
    const std::array<dsm::ArrayView<float>, 2> colour = {p.view(colour_[0]), p.view(colour_[1])};
    std::size_t points = 0;
    for (std::size_t r = begin; r < end; ++r) {
      const bool full_row = !problem_.zero_interior || r == 0 || r + 1 == problem_.rows;
      if (full_row) {
        for (int color = 0; color < 2; ++color) {
          const std::span<float> row = colour[color].write_span(r * half(), half());
          for (std::size_t k = 0; k < half(); ++k)
            row[k] = sor_initial(problem_, seed_, r, 2 * k + sor_parity(r, color));
        }
        points += cols;
      } else {  // the edge columns: 0 (parity 0) and cols - 1 (odd: parity 1)
        const int even_colour = static_cast<int>(r & 1U);
        colour[even_colour].set(r * half(), sor_initial(problem_, seed_, r, 0));
        colour[1 - even_colour].set(r * half() + half() - 1, sor_initial(problem_, seed_, r, cols - 1));
        points += 2;
      }
    }
    p.charge(kPerInitPoint * static_cast<double>(points));
  }

  // One half sweep of this node's band: the points of `color`, from the other colour.
  void relax(dsm::Process& p, int color) {
    CARNIVAL_SCOPE_KIND(p, "relax", "function");
    const std::size_t h = half();
    const std::size_t begin = first_row(p.id());
    const std::size_t end = first_row(p.id() + 1);
    const auto other = p.view(colour_[1 - color]);
    // The other colour's row above the band (a neighbour's, or the top edge) and the band's own
    // rows are needed first; base pointers index the whole array.
    const float* from = other.read_span((begin - 1) * h, (end - begin + 1) * h).data() - (begin - 1) * h;
    float* to = p.view(colour_[color]).write_span(begin * h, (end - begin) * h).data() - begin * h;
    const std::size_t rows_per_charge = std::max<std::size_t>(1, kChargePoints / h);
    for (std::size_t chunk = begin; chunk < end; chunk += rows_per_charge) {
      const std::size_t chunk_end = std::min(end, chunk + rows_per_charge);
      std::size_t points = 0;
      for (std::size_t r = chunk; r < chunk_end; ++r) {
        if (r + 1 == end) (void)other.read_span(end * h, h);  // the row below the band, needed last
        points += sor_relax_row(from + (r - 1) * h, to + r * h, from + (r + 1) * h, from + r * h,
                                problem_.cols, r, color, problem_.omega);
      }
      p.charge(kPerPoint * static_cast<double>(points));
    }
  }

  SorProblem problem_;
  int nodes_;
  std::uint64_t seed_;
  std::array<dsm::SharedArray<float>, 2> colour_;  // red, black
};

SorProblem problem_of(const Params& params) {
  return SorProblem{.rows = static_cast<std::size_t>(params.integer("rows")),
                    .cols = static_cast<std::size_t>(params.integer("cols")),
                    .iterations = params.integer("iterations"),
                    .zero_interior = params.text("interior") == "zero",
                    .omega = static_cast<float>(params.real("omega"))};
}

}  // namespace

Workload sor_workload() {
  Workload w;
  w.name = "sor";
  w.description =
      "red-black successive over-relaxation of a float grid, a band of rows per node; interior=zero is "
      "SC'95's SOR-Zero (few changed words, small diffs), nonzero changes every point";
  w.parameters = {
      int_param("rows", 256, "grid rows, the two fixed edge rows included", 3, 1 << 16),
      int_param("cols", 256, "grid columns (even: half red, half black), the two fixed edge columns included",
                4, 1 << 16),
      int_param("iterations", 10, "red-black iterations (2 barriers each)", 1, 100'000),
      text_param("interior", "nonzero", "initial interior: zero (edges 1, interior 0) or nonzero (seeded)",
                 {"zero", "nonzero"}),
      real_param("omega", 1.25, "over-relaxation factor", 0.0, 2.0),
  };
  // paper: a 2000 x 1000 single-precision grid, the size we recall for the TreadMarks SOR runs
  // (SC'95; the paper is not in this repository, so unchecked); 50 iterations is our choice.
  w.presets = {
      {"small", {{"rows", std::int64_t{130}}, {"cols", std::int64_t{128}}, {"iterations", std::int64_t{4}}}},
      {"paper",
       {{"rows", std::int64_t{2000}}, {"cols", std::int64_t{1000}}, {"iterations", std::int64_t{50}}}},
  };
  w.validate = [](const Params& params, int nodes) {
    const std::int64_t interior_rows = params.integer("rows") - 2;
    if (interior_rows < nodes)
      throw WorkloadError(
          fmt::format("sor needs at least one interior row per node: rows={} has {} interior rows < nodes={}",
                      params.integer("rows"), interior_rows, nodes));
    if (params.integer("cols") % 2 != 0)
      throw WorkloadError(
          fmt::format("sor needs an even number of columns (red and black points are stored in two "
                      "arrays of cols/2): cols={}",
                      params.integer("cols")));
    if (params.integer("rows") * params.integer("cols") > (std::int64_t{1} << 28))
      throw WorkloadError(fmt::format("sor grid too large: rows x cols = {} x {} > 2^28 points",
                                      params.integer("rows"), params.integer("cols")));
  };
  w.make = [](const Params& params, int nodes, std::uint64_t seed) {
    return std::make_unique<Sor>(problem_of(params), nodes, seed);
  };
  return w;
}

}  // namespace ncp2::workloads
