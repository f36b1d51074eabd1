// sor_native: a plain sequential red-black SOR, the native reference program that
// docs/counters.md characterizes with `ncp2 counters` (the paper's periods 1 ms, 100 ms, 5 s).
// No DSM, no emulator: a grid of floats relaxed red then black, and every `checkpoint`
// iterations a snapshot of the grid into freshly allocated memory, as a long solver saving its
// state would do. The snapshots are the program's phases: bursts of page faults (new pages) among
// steady computation, which a short sampling period shows and a long one smooths away.
//
//   sor_native [ROWS] [COLS] [ITERATIONS] [CHECKPOINT]     (defaults 2000 2000 200 50)
// Prints the checksum of the final grid (the same for the same arguments).
#include <malloc.h>

#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <string_view>
#include <vector>

namespace {

std::size_t argument(int argc, char** argv, int i, std::size_t fallback) {
  if (i >= argc) return fallback;
  std::size_t v = 0;
  const std::string_view s(argv[i]);
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size() || v == 0) {
    std::fprintf(stderr, "sor_native: argument %d ('%s') must be a positive integer\n", i, argv[i]);
    std::exit(2);
  }
  return v;
}

// One colour's half sweep: a point of colour `color` ((r + c) % 2) from its four neighbours.
void relax(std::vector<float>& grid, std::size_t rows, std::size_t cols, std::size_t color, float omega) {
  for (std::size_t r = 1; r + 1 < rows; ++r) {
    float* row = grid.data() + r * cols;
    const float* above = row - cols;
    const float* below = row + cols;
    for (std::size_t c = 1 + (r + 1 + color) % 2; c + 1 < cols; c += 2)
      row[c] = (1 - omega) * row[c] + 0.25F * omega * (above[c] + below[c] + row[c - 1] + row[c + 1]);
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 5) {
    std::fprintf(stderr, "usage: sor_native [ROWS] [COLS] [ITERATIONS] [CHECKPOINT]\n");
    return 2;
  }
  const std::size_t rows = argument(argc, argv, 1, 2000);
  const std::size_t cols = argument(argc, argv, 2, 2000);
  const std::size_t iterations = argument(argc, argv, 3, 200);
  const std::size_t checkpoint = argument(argc, argv, 4, 50);
  if (rows < 3 || cols < 3) {
    std::fprintf(stderr, "sor_native: the grid needs at least 3 x 3 points\n");
    return 2;
  }
  constexpr float kOmega = 1.5F;
  // A fixed mmap threshold: every large block is a fresh mapping, returned to the kernel when
  // freed (glibc would otherwise raise the threshold after the first free and reuse the heap).
  mallopt(M_MMAP_THRESHOLD, 1 << 20);

  // Edges at 1, the interior at 0 (SOR-Zero): the values spread from the edges.
  std::vector<float> grid(rows * cols, 0.0F);
  for (std::size_t c = 0; c < cols; ++c) grid[c] = grid[(rows - 1) * cols + c] = 1.0F;
  for (std::size_t r = 0; r < rows; ++r) grid[r * cols] = grid[r * cols + cols - 1] = 1.0F;

  double snapshot_sum = 0;
  for (std::size_t it = 1; it <= iterations; ++it) {
    relax(grid, rows, cols, 0, kOmega);
    relax(grid, rows, cols, 1, kOmega);
    if (it % checkpoint == 0) {
      // A fresh mapping every time: its pages fault in as the copy writes them.
      const std::vector<float> snapshot(grid.begin(), grid.end());
      snapshot_sum += snapshot[(rows / 2) * cols + 1];
    }
  }
  double sum = 0;
  for (float v : grid) sum += v;
  std::printf("sor_native %zux%zu, %zu iterations, checkpoint every %zu: checksum %.6f (snapshots %.6f)\n",
              rows, cols, iterations, checkpoint, sum, snapshot_sum);
  return 0;
}
