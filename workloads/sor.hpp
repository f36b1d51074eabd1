#pragma once
// The native side of the sor workload (workloads/sor.cpp), for its verification and for
// bench/sor-speed, which times the emulated run against this very computation.
#include <cstddef>
#include <cstdint>
#include <vector>

namespace ncp2::workloads {

struct SorProblem {
  std::size_t rows = 0;  // grid rows, the fixed top and bottom edges included
  std::size_t cols = 0;  // grid columns (even), the fixed left and right edges included
  std::int64_t iterations = 0;
  bool zero_interior = false;  // SC'95 "SOR-Zero": interior starts at 0, edges at 1
  float omega = 1.0F;          // over-relaxation factor
};

// The initial value of grid point (r, c) for `seed`.
float sor_initial(const SorProblem& problem, std::uint64_t seed, std::size_t r, std::size_t c);

// Red points are those with (r + c) even, black the others. Each colour is stored in its own
// rows x cols/2 array, colour row r holding the points of its colour in grid row r in column
// order: its element k is grid column 2k + sor_parity(r, color).
inline std::size_t sor_parity(std::size_t r, int color) { return (r + static_cast<std::size_t>(color)) & 1U; }

// One half sweep of one interior row: the points of `color` in grid row r (1 <= r < rows - 1;
// the edge columns stay fixed), from the other colour's rows above and below and its own row r
// (`side`). Rows of cols/2 elements. The emulated run and the sequential reference both call
// this, so their results are bit-identical. Returns the number of points updated.
std::size_t sor_relax_row(const float* above, float* row, const float* below, const float* side,
                          std::size_t cols, std::size_t r, int color, float omega);

// The whole computation, sequential and native (same colour arrays, same kernel): the grid, in
// natural row-major order, after `iterations` red-black sweeps.
std::vector<float> sor_sequential(const SorProblem& problem, std::uint64_t seed);

}  // namespace ncp2::workloads
