/* Red-black successive over-relaxation of a rows x cols grid of doubles, TreadMarks style (the
 * program of the SC'95 TreadMarks study).
 *
 * The edges are fixed (top 1.0, others 0); the interior starts from a hash of the point. Points
 * are coloured like a checkerboard; an iteration updates every red point from its four (black)
 * neighbours, barrier, then every black point from its (red) neighbours, barrier. Each node owns a
 * contiguous band of rows; only the rows at band edges are shared with the neighbours. Within a
 * colour phase no point depends on another of the same colour, so the result is bit-identical to
 * the sequential order, which node 0 checks at the end.
 *
 * Arguments: rows cols iterations omega check (default 258 258 10 1.25 1). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tmk.h>

static double *grid;

static double initial(int rows, int cols, int r, int c) {
  if (r == 0) return 1.0;
  if (c == 0 || r == rows - 1 || c == cols - 1) return 0.0;
  uint64_t h = (uint64_t)r * 0x9E3779B97F4A7C15ull ^ (uint64_t)c * 0xC2B2AE3D27D4EB4Full;
  h ^= h >> 29;
  h *= 0xBF58476D1CE4E5B9ull;
  h ^= h >> 32;
  return (double)(h >> 11) * 0x1p-53;
}

/* One colour (0 red, 1 black) of rows [first, last) of g. */
static void sweep(double *g, int cols, int first, int last, int colour, double omega) {
  for (int r = first; r < last; ++r)
    for (int c = 1 + ((r + 1 + colour) & 1); c < cols - 1; c += 2) {
      double *p = &g[r * cols + c];
      const double average = 0.25 * ((p[-cols] + p[cols]) + (p[-1] + p[1]));
      *p += omega * (average - *p);
    }
}

static int check(int rows, int cols, int iterations, double omega) {
  double *g = malloc(sizeof(double) * (size_t)rows * (size_t)cols);
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c) g[r * cols + c] = initial(rows, cols, r, c);
  for (int it = 0; it < iterations; ++it) {
    sweep(g, cols, 1, rows - 1, 0, omega);
    sweep(g, cols, 1, rows - 1, 1, omega);
  }
  const int same = memcmp(g, grid, sizeof(double) * (size_t)rows * (size_t)cols) == 0;
  free(g);
  return same;
}

int main(int argc, char **argv) {
  Tmk_startup(argc, argv);
  const int rows = argc > 1 ? atoi(argv[1]) : 258;
  const int cols = argc > 2 ? atoi(argv[2]) : 258;
  const int iterations = argc > 3 ? atoi(argv[3]) : 10;
  const double omega = argc > 4 ? atof(argv[4]) : 1.25;
  const int check_result = argc > 5 ? atoi(argv[5]) : 1;
  if (rows < 3 || cols < 3 || iterations < 0) {
    if (Tmk_proc_id == 0)
      fprintf(stderr, "usage: sor [rows >= 3] [cols >= 3] [iterations >= 0] [omega] [check]\n");
    Tmk_exit(2);
  }
  if (Tmk_proc_id == 0) {
    grid = Tmk_malloc(sizeof(double) * (size_t)rows * (size_t)cols);
    Tmk_distribute(&grid, sizeof grid);
  }
  Tmk_barrier(0);
  const int interior = rows - 2;
  const int first = 1 + (int)((long)interior * Tmk_proc_id / Tmk_nprocs);
  const int last = 1 + (int)((long)interior * (Tmk_proc_id + 1) / Tmk_nprocs);
  TMK_SCOPE_BEGIN("init"); /* each node its own band; node 0 the top edge, the last node the bottom */
  const int init_first = Tmk_proc_id == 0 ? 0 : first;
  const int init_last = Tmk_proc_id == Tmk_nprocs - 1 ? rows : last;
  for (int r = init_first; r < init_last; ++r)
    for (int c = 0; c < cols; ++c) grid[r * cols + c] = initial(rows, cols, r, c);
  TMK_SCOPE_END();
  Tmk_barrier(3);
  for (int it = 0; it < iterations; ++it) {
    TMK_SCOPE_BEGIN("red");
    sweep(grid, cols, first, last, 0, omega);
    TMK_SCOPE_END();
    Tmk_barrier(1);
    TMK_SCOPE_BEGIN("black");
    sweep(grid, cols, first, last, 1, omega);
    TMK_SCOPE_END();
    Tmk_barrier(2);
  }
  int status = 0;
  if (Tmk_proc_id == 0) {
    double sum = 0; /* reads every page: only with the check */
    for (int i = 0; check_result && i < rows * cols; ++i) sum += grid[i];
    const int ok = !check_result || check(rows, cols, iterations, omega);
    printf("sor %dx%d, %d iterations, omega %.2f on %u node(s): checksum %.9f, %s\n", rows, cols, iterations,
           omega, Tmk_nprocs, sum,
           !check_result ? "not checked" : ok ? "verified" : "WRONG (differs from the sequential order)");
    status = ok ? 0 : 1;
  }
  Tmk_exit(status);
}
