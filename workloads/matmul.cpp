// matmul: C = A x B for n x n matrices of doubles (written here from the algorithm). The rows of
// A, B and C are split into one contiguous band per node. Each node initializes its bands of A
// and B; a barrier; each node computes its band of C, reading all of B (every other node's band
// moves to it, whole pages the first time); the exit barrier. The loop order (i, k, j) is the
// same as the sequential reference's, so the result is bit-identical.
#include <algorithm>
#include <bit>
#include <cstdint>
#include <vector>

#include <fmt/format.h>

#include "carnival/scope.hpp"
#include "workloads/registry.hpp"

namespace ncp2::workloads {
namespace {

// The inner loop: C[i][j] += a * B[k][j]: a multiply and an add, 2 loads and a store.
constexpr dsm::OpCounts kPerMultiplyAdd{.flops = 2, .int_ops = 1, .loads = 2, .stores = 1, .branches = 1};
constexpr dsm::OpCounts kPerInit{.flops = 0, .int_ops = 4, .loads = 0, .stores = 1, .branches = 1};

// Seeded values in [-1, 1) with 24 significant bits, so the products are exact and only the
// order of the additions matters.
double entry(std::uint64_t seed, std::uint64_t which, std::size_t i) {
  return static_cast<double>(seeded(seed ^ which, i) >> 40) * 0x1p-23 - 1.0;
}
constexpr std::uint64_t kMatrixA = 0xA;
constexpr std::uint64_t kMatrixB = 0xB;

// One row of C: c[j] = sum over k of a[k] * b[k][j], accumulated in the order k = 0, 1, ...
void multiply_row(const double* a_row, const double* b, double* c_row, std::size_t n) {
  std::fill(c_row, c_row + n, 0.0);
  for (std::size_t k = 0; k < n; ++k) {
    const double a = a_row[k];
    const double* b_row = b + k * n;
    for (std::size_t j = 0; j < n; ++j) c_row[j] += a * b_row[j];
  }
}

class MatMul final : public Instance {
 public:
  MatMul(std::size_t n, int nodes, std::uint64_t seed) : n_(n), nodes_(nodes), seed_(seed) {}

  void run(dsm::Process& p) override {
    allocate(p);
    initialize(p);
    p.barrier(0);
    multiply(p);
  }

  void verify(dsm::Process& p) override {
    if (p.id() != 0) return;
    std::vector<double> a(n_ * n_), b(n_ * n_), expected(n_ * n_);
    for (std::size_t i = 0; i < n_ * n_; ++i) {
      a[i] = entry(seed_, kMatrixA, i);
      b[i] = entry(seed_, kMatrixB, i);
    }
    for (std::size_t i = 0; i < n_; ++i) multiply_row(&a[i * n_], b.data(), &expected[i * n_], n_);
    const std::span<const double> got = p.view(c_).read_span(0, n_ * n_);
    std::size_t wrong = 0;
    std::size_t first = 0;
    for (std::size_t i = 0; i < n_ * n_; ++i)
      if (std::bit_cast<std::uint64_t>(got[i]) != std::bit_cast<std::uint64_t>(expected[i]) && wrong++ == 0)
        first = i;
    if (wrong != 0)
      return fail(fmt::format("{} of {} elements of C differ; first C[{}][{}] = {}, expected {}", wrong,
                              n_ * n_, first / n_, first % n_, got[first], expected[first]));
    pass(fmt::format("C = A x B ({}x{}) bit-identical to the sequential product", n_, n_));
  }

 private:
  [[nodiscard]] std::size_t first_row(int id) const { return block_begin(n_, nodes_, id); }

  void allocate(dsm::Process& p) {
    a_ = p.alloc<double>("matmul.a", n_ * n_);
    b_ = p.alloc<double>("matmul.b", n_ * n_);
    c_ = p.alloc<double>("matmul.c", n_ * n_);
  }

  // This node's rows of A and of B.
  void initialize(dsm::Process& p) const {
    CARNIVAL_SCOPE_KIND(p, "initialize", "function");
    const std::size_t first = first_row(p.id()) * n_;
    const std::size_t count = (first_row(p.id() + 1) - first_row(p.id())) * n_;
    const std::span<double> a = p.view(a_).write_span(first, count);
    const std::span<double> b = p.view(b_).write_span(first, count);
    for (std::size_t i = 0; i < count; ++i) {
      a[i] = entry(seed_, kMatrixA, first + i);
      b[i] = entry(seed_, kMatrixB, first + i);
    }
    p.charge(kPerInit * static_cast<double>(2 * count));
  }

  // This node's rows of C. B is fetched row band by row band as the k loop reaches it.
  void multiply(dsm::Process& p) const {
    CARNIVAL_SCOPE_KIND(p, "multiply", "function");
    const auto a = p.view(a_);
    const auto b = p.view(b_);
    const auto c = p.view(c_);
    for (std::size_t i = first_row(p.id()); i < first_row(p.id() + 1); ++i) {
      CARNIVAL_SCOPE_KIND(p, "row of C", "loop");
      // The first row also brings all of B to this node (its pages stay valid: B is read-only).
      const double* whole_b = b.read_span(0, n_ * n_).data();
      multiply_row(a.read_span(i * n_, n_).data(), whole_b, c.write_span(i * n_, n_).data(), n_);
      p.charge(kPerMultiplyAdd * static_cast<double>(n_ * n_));
    }
  }

  std::size_t n_;
  int nodes_;
  std::uint64_t seed_;
  dsm::SharedArray<double> a_, b_, c_;
};

}  // namespace

Workload matmul_workload() {
  Workload w;
  w.name = "matmul";
  w.description = "C = A x B for n x n doubles, a band of rows of C per node; every node reads all of B";
  w.parameters = {int_param("n", 128, "matrix order (n x n doubles each for A, B and C)", 1, 8192)};
  // paper: 512 x 512: our choice (no MatMul input size in this repository's sources).
  w.presets = {
      {"small", {{"n", std::int64_t{64}}}},
      {"paper", {{"n", std::int64_t{512}}}},
  };
  w.validate = [](const Params& params, int nodes) {
    if (params.integer("n") < nodes)
      throw WorkloadError(fmt::format("matmul needs at least one row of C per node: n={} < nodes={}",
                                      params.integer("n"), nodes));
  };
  w.make = [](const Params& params, int nodes, std::uint64_t seed) {
    return std::make_unique<MatMul>(static_cast<std::size_t>(params.integer("n")), nodes, seed);
  };
  return w;
}

}  // namespace ncp2::workloads
