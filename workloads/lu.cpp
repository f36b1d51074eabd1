// lu: blocked LU factorization without pivoting of an n x n matrix of doubles, SPLASH-2 style
// (written here from the algorithm). The matrix is stored as contiguous B x B blocks (block
// (I, J) at (I * nb + J) * B * B), so a block is a few whole pages, and the blocks are assigned
// 2-D cyclically to a pr x pc grid of nodes: block (I, J) belongs to node (I % pr) * pc + J % pc.
// Step K:
//   diagonal:  the owner of (K, K) factors it in place (L unit lower, U upper); barrier;
//   perimeter: the owners of (K, J > K) solve L_KK X = A_KJ and the owners of (I > K, K) solve
//              X U_KK = A_IK, reading the diagonal block; barrier;
//   interior:  the owners of (I > K, J > K) update A_IJ -= A_IK A_KJ, reading two perimeter
//              blocks; barrier.
// The matrix is diagonally dominant, so no pivoting is needed. Every block operation runs in the
// same order as in the sequential blocked reference, so the factors are bit-identical to it.
// Barriers: 1 after the initialization + 3 per step + the exit barrier.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <vector>

#include <fmt/format.h>

#include "carnival/scope.hpp"
#include "workloads/registry.hpp"

namespace ncp2::workloads {
namespace {

constexpr dsm::OpCounts kPerMultiplyAdd{.flops = 2, .int_ops = 1, .loads = 2, .stores = 1, .branches = 1};
constexpr dsm::OpCounts kPerDivide{.flops = 20, .int_ops = 0, .loads = 1, .stores = 1, .branches = 1};
constexpr dsm::OpCounts kPerInit{.flops = 1, .int_ops = 4, .loads = 0, .stores = 1, .branches = 1};

// The block kernels on B x B row-major blocks, shared by the emulated run and the reference.
// Each returns its operation counts.

// In place: A = L U, L unit lower (below the diagonal), U upper.
dsm::OpCounts factor_diagonal(double* a, std::size_t b) {
  double madds = 0;
  for (std::size_t k = 0; k < b; ++k)
    for (std::size_t i = k + 1; i < b; ++i) {
      a[i * b + k] /= a[k * b + k];
      const double l = a[i * b + k];
      for (std::size_t j = k + 1; j < b; ++j) a[i * b + j] -= l * a[k * b + j];
      madds += static_cast<double>(b - k - 1);
    }
  return kPerMultiplyAdd * madds + kPerDivide * (static_cast<double>(b * (b - 1)) / 2);
}

// Row perimeter block: X = L^-1 A (L unit lower, from the diagonal block).
dsm::OpCounts solve_lower(const double* diag, double* a, std::size_t b) {
  for (std::size_t k = 0; k < b; ++k)
    for (std::size_t i = k + 1; i < b; ++i) {
      const double l = diag[i * b + k];
      for (std::size_t j = 0; j < b; ++j) a[i * b + j] -= l * a[k * b + j];
    }
  return kPerMultiplyAdd * (static_cast<double>(b * b * (b - 1)) / 2);
}

// Column perimeter block: X = A U^-1 (U upper, from the diagonal block).
dsm::OpCounts solve_upper(const double* diag, double* a, std::size_t b) {
  for (std::size_t i = 0; i < b; ++i)
    for (std::size_t k = 0; k < b; ++k) {
      a[i * b + k] /= diag[k * b + k];
      const double x = a[i * b + k];
      for (std::size_t j = k + 1; j < b; ++j) a[i * b + j] -= x * diag[k * b + j];
    }
  return kPerMultiplyAdd * (static_cast<double>(b * b * (b - 1)) / 2) +
         kPerDivide * static_cast<double>(b * b);
}

// Interior block: A -= L U (the column block times the row block).
dsm::OpCounts update_interior(const double* left, const double* up, double* a, std::size_t b) {
  for (std::size_t i = 0; i < b; ++i)
    for (std::size_t k = 0; k < b; ++k) {
      const double l = left[i * b + k];
      for (std::size_t j = 0; j < b; ++j) a[i * b + j] -= l * up[k * b + j];
    }
  return kPerMultiplyAdd * static_cast<double>(b * b * b);
}

// Seeded entries in [0, 1), plus n on the diagonal: diagonally dominant.
double entry(std::uint64_t seed, std::size_t n, std::size_t i, std::size_t j) {
  const double v = static_cast<double>(seeded(seed, i * n + j) >> 11) * 0x1p-53;
  return i == j ? v + static_cast<double>(n) : v;
}

// The 2-D node grid: pr rows x pc columns, pr the largest divisor of nodes <= sqrt(nodes).
struct NodeGrid {
  explicit NodeGrid(int nodes) {
    for (int r = 1; r * r <= nodes; ++r)
      if (nodes % r == 0) rows = r;
    cols = nodes / rows;
  }
  [[nodiscard]] int owner(std::size_t bi, std::size_t bj) const {
    return static_cast<int>(bi % static_cast<std::size_t>(rows)) * cols +
           static_cast<int>(bj % static_cast<std::size_t>(cols));
  }
  int rows = 1;
  int cols = 1;
};

class Lu final : public Instance {
 public:
  Lu(std::size_t n, std::size_t block, int nodes, std::uint64_t seed)
      : n_(n), b_(block), nb_(n / block), grid_(nodes), seed_(seed) {}

  void run(dsm::Process& p) override {
    allocate(p);
    initialize(p);
    p.barrier(0);
    for (std::size_t k = 0; k < nb_; ++k) {
      CARNIVAL_SCOPE_KIND(p, "step", "loop");
      diagonal(p, k);
      p.barrier(0);
      perimeter(p, k);
      p.barrier(0);
      interior(p, k);
      p.barrier(0);
    }
  }

  void verify(dsm::Process& p) override {
    if (p.id() != 0) return;
    const std::vector<double> expected = sequential();
    const std::span<const double> got = p.view(matrix_).read_span(0, n_ * n_);
    std::size_t wrong = 0;
    std::size_t first = 0;
    for (std::size_t i = 0; i < n_ * n_; ++i)
      if (std::bit_cast<std::uint64_t>(got[i]) != std::bit_cast<std::uint64_t>(expected[i]) && wrong++ == 0)
        first = i;
    if (wrong != 0)
      return fail(fmt::format(
          "{} of {} factor entries differ from the sequential blocked LU; first at offset {}: {}, "
          "expected {}",
          wrong, n_ * n_, first, got[first], expected[first]));
    // The algorithm itself: L U against A on a few rows (relative error).
    const double error = factor_error(got);
    if (!(error <= 1e-12))
      return fail(
          fmt::format("factors match the sequential LU but max |LU - A| / max |A| = {:.3g} > 1e-12", error));
    pass(fmt::format(
        "LU of {}x{} ({}x{} blocks) bit-identical to the sequential blocked LU; |LU - A| / |A| = {:.3g}", n_,
        n_, b_, b_, error));
  }

 private:
  [[nodiscard]] std::size_t block_offset(std::size_t bi, std::size_t bj) const {
    return (bi * nb_ + bj) * b_ * b_;
  }
  [[nodiscard]] bool mine(const dsm::Process& p, std::size_t bi, std::size_t bj) const {
    return grid_.owner(bi, bj) == p.id();
  }

  void allocate(dsm::Process& p) { matrix_ = p.alloc<double>("lu.matrix", n_ * n_); }

  // Element (i, j) of the block layout.
  [[nodiscard]] std::size_t at(std::size_t i, std::size_t j) const {
    return block_offset(i / b_, j / b_) + (i % b_) * b_ + j % b_;
  }

  // Each node writes its own blocks.
  void initialize(dsm::Process& p) const {
    CARNIVAL_SCOPE_KIND(p, "initialize", "function");
    const auto m = p.view(matrix_);
    for (std::size_t bi = 0; bi < nb_; ++bi)
      for (std::size_t bj = 0; bj < nb_; ++bj) {
        if (!mine(p, bi, bj)) continue;
        const std::span<double> block = m.write_span(block_offset(bi, bj), b_ * b_);
        for (std::size_t i = 0; i < b_; ++i)
          for (std::size_t j = 0; j < b_; ++j) block[i * b_ + j] = entry(seed_, n_, bi * b_ + i, bj * b_ + j);
        p.charge(kPerInit * static_cast<double>(b_ * b_));
      }
  }

  void diagonal(dsm::Process& p, std::size_t k) const {
    CARNIVAL_SCOPE_KIND(p, "factor diagonal block", "function");
    if (!mine(p, k, k)) return;
    p.charge(factor_diagonal(p.view(matrix_).write_span(block_offset(k, k), b_ * b_).data(), b_));
  }

  void perimeter(dsm::Process& p, std::size_t k) const {
    CARNIVAL_SCOPE_KIND(p, "update perimeter blocks", "function");
    const auto m = p.view(matrix_);
    const double* diag = nullptr;  // fetched when this node owns a perimeter block
    for (std::size_t j = k + 1; j < nb_; ++j) {
      if (!mine(p, k, j)) continue;
      if (diag == nullptr) diag = m.read_span(block_offset(k, k), b_ * b_).data();
      p.charge(solve_lower(diag, m.write_span(block_offset(k, j), b_ * b_).data(), b_));
    }
    for (std::size_t i = k + 1; i < nb_; ++i) {
      if (!mine(p, i, k)) continue;
      if (diag == nullptr) diag = m.read_span(block_offset(k, k), b_ * b_).data();
      p.charge(solve_upper(diag, m.write_span(block_offset(i, k), b_ * b_).data(), b_));
    }
  }

  void interior(dsm::Process& p, std::size_t k) const {
    CARNIVAL_SCOPE_KIND(p, "update interior blocks", "function");
    const auto m = p.view(matrix_);
    for (std::size_t i = k + 1; i < nb_; ++i)
      for (std::size_t j = k + 1; j < nb_; ++j) {
        if (!mine(p, i, j)) continue;
        const double* left = m.read_span(block_offset(i, k), b_ * b_).data();
        const double* up = m.read_span(block_offset(k, j), b_ * b_).data();
        p.charge(update_interior(left, up, m.write_span(block_offset(i, j), b_ * b_).data(), b_));
      }
  }

  // The same blocked factorization, natively and sequentially, in the same block layout.
  [[nodiscard]] std::vector<double> sequential() const {
    std::vector<double> a(n_ * n_);
    for (std::size_t i = 0; i < n_; ++i)
      for (std::size_t j = 0; j < n_; ++j) a[at(i, j)] = entry(seed_, n_, i, j);
    const auto blk = [&](std::size_t bi, std::size_t bj) { return &a[block_offset(bi, bj)]; };
    for (std::size_t k = 0; k < nb_; ++k) {
      factor_diagonal(blk(k, k), b_);
      for (std::size_t j = k + 1; j < nb_; ++j) solve_lower(blk(k, k), blk(k, j), b_);
      for (std::size_t i = k + 1; i < nb_; ++i) solve_upper(blk(k, k), blk(i, k), b_);
      for (std::size_t i = k + 1; i < nb_; ++i)
        for (std::size_t j = k + 1; j < nb_; ++j) update_interior(blk(i, k), blk(k, j), blk(i, j), b_);
    }
    return a;
  }

  // max |(L U)(i, j) - A(i, j)| / max |A| over up to 16 rows spread over the matrix.
  [[nodiscard]] double factor_error(std::span<const double> lu) const {
    double worst = 0;
    const std::size_t step = std::max<std::size_t>(1, n_ / 16);
    for (std::size_t i = 0; i < n_; i += step)
      for (std::size_t j = 0; j < n_; ++j) {
        double s = 0;
        for (std::size_t k = 0; k <= std::min(i, j); ++k) {
          const double l = k == i ? 1.0 : lu[at(i, k)];
          s += l * lu[at(k, j)];
        }
        worst = std::max(worst, std::abs(s - entry(seed_, n_, i, j)));
      }
    return worst / (static_cast<double>(n_) + 1.0);  // max |A| < n + 1
  }

  std::size_t n_, b_, nb_;
  NodeGrid grid_;
  std::uint64_t seed_;
  dsm::SharedArray<double> matrix_;
};

}  // namespace

Workload lu_workload() {
  Workload w;
  w.name = "lu";
  w.description =
      "blocked LU factorization (SPLASH-2 style): contiguous B x B blocks assigned 2-D cyclically; "
      "diagonal, perimeter and interior phases separated by barriers";
  w.parameters = {
      int_param("n", 128, "matrix order (n x n doubles)", 1, 8192),
      int_param("block", 16, "block size B (n must be a multiple of B)", 1, 512),
  };
  // paper: 512 x 512 with 16 x 16 blocks, SPLASH-2 LU's default input.
  w.presets = {
      {"small", {{"n", std::int64_t{64}}, {"block", std::int64_t{8}}}},
      {"paper", {{"n", std::int64_t{512}}, {"block", std::int64_t{16}}}},
  };
  w.validate = [](const Params& params, int nodes) {
    const std::int64_t n = params.integer("n");
    const std::int64_t b = params.integer("block");
    if (n % b != 0)
      throw WorkloadError(fmt::format("lu needs n to be a multiple of block: n={} block={}", n, b));
    const std::int64_t blocks = (n / b) * (n / b);
    if (blocks < nodes)
      throw WorkloadError(fmt::format(
          "lu needs at least one block per node: (n/block)^2 = {} blocks < nodes={}", blocks, nodes));
  };
  w.make = [](const Params& params, int nodes, std::uint64_t seed) {
    return std::make_unique<Lu>(static_cast<std::size_t>(params.integer("n")),
                                static_cast<std::size_t>(params.integer("block")), nodes, seed);
  };
  return w;
}

}  // namespace ncp2::workloads
