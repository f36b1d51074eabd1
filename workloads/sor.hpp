#pragma once
// The native side of the sor workload (workloads/sor.cpp), for its verification and for
// bench/sor-speed, which times the emulated run against this very computation.
#include <cstddef>
#include <cstdint>
#include <vector>

namespace ncp2::workloads {

struct SorProblem {
  std::size_t rows = 0;  // grid rows, the fixed top and bottom edges included
  std::size_t cols = 0;  // grid columns, the fixed left and right edges included
  std::int64_t iterations = 0;
  bool zero_interior = false;  // SC'95 "SOR-Zero": interior starts at 0, edges at 1
  float omega = 1.0F;          // over-relaxation factor
};

// The initial value of grid point (r, c) for `seed`.
float sor_initial(const SorProblem& problem, std::uint64_t seed, std::size_t r, std::size_t c);

// One red-black half sweep of one interior row: the points (r, c) with (r + c) % 2 == color,
// 1 <= c < cols - 1, from the row above, the row itself and the row below. The emulated run and
// the sequential reference both call this, so their results are bit-identical. Returns the
// number of points updated.
std::size_t sor_relax_row(const float* above, float* row, const float* below, std::size_t cols, std::size_t r,
                          int color, float omega);

// The whole computation, sequential and native: the grid after `iterations` red-black sweeps.
std::vector<float> sor_sequential(const SorProblem& problem, std::uint64_t seed);

}  // namespace ncp2::workloads
