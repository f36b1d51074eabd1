/* Jacobi relaxation of a rows x cols grid of floats, TreadMarks style.
 *
 * The top edge is held at 1.0, the other edges at 0; the interior starts from a hash of the point
 * in [0, 1). Each node owns a contiguous band of interior rows. One iteration: every node computes
 * the new values of its band into a private scratch band (reading the rows above and below its
 * band from its neighbours through shared memory), barrier, copies the scratch band back into the
 * shared grid, barrier. The result is bit-identical to the sequential iteration, which node 0
 * computes privately at the end to check it.
 *
 * Arguments: rows cols iterations check (default 258 258 10 1; check 0 skips node 0's sequential
 * check, to time the parallel program alone). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tmk.h>

static float *grid; /* rows x cols, shared; node 0 allocates, Tmk_distribute gives the pointer */

static float initial(int rows, int cols, int r, int c) {
  if (r == 0) return 1.0f;
  if (c == 0 || r == rows - 1 || c == cols - 1) return 0.0f;
  uint32_t h = (uint32_t)(r * 73856093) ^ (uint32_t)(c * 19349663);
  h ^= h >> 13;
  h *= 0x5bd1e995u;
  h ^= h >> 15;
  return (float)(h >> 8) * 0x1p-24f;
}

/* The new interior of row r into out[1 .. cols-2]. */
static void relax_row(const float *above, const float *row, const float *below, float *out, int cols) {
  for (int c = 1; c < cols - 1; ++c) out[c] = 0.25f * ((above[c] + below[c]) + (row[c - 1] + row[c + 1]));
}

static int check(int rows, int cols, int iterations) {
  float *a = malloc(sizeof(float) * (size_t)rows * (size_t)cols);
  float *b = malloc(sizeof(float) * (size_t)rows * (size_t)cols);
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c) a[r * cols + c] = b[r * cols + c] = initial(rows, cols, r, c);
  for (int it = 0; it < iterations; ++it) {
    for (int r = 1; r < rows - 1; ++r)
      relax_row(&a[(r - 1) * cols], &a[r * cols], &a[(r + 1) * cols], &b[r * cols], cols);
    float *t = a;
    a = b;
    b = t;
  }
  int same = memcmp(a, grid, sizeof(float) * (size_t)rows * (size_t)cols) == 0;
  free(a);
  free(b);
  return same;
}

int main(int argc, char **argv) {
  Tmk_startup(argc, argv);
  const int rows = argc > 1 ? atoi(argv[1]) : 258;
  const int cols = argc > 2 ? atoi(argv[2]) : 258;
  const int iterations = argc > 3 ? atoi(argv[3]) : 10;
  const int check_result = argc > 4 ? atoi(argv[4]) : 1;
  if (rows < 3 || cols < 3 || iterations < 0) {
    if (Tmk_proc_id == 0)
      fprintf(stderr, "usage: jacobi [rows >= 3] [cols >= 3] [iterations >= 0] [check]\n");
    Tmk_exit(2);
  }
  if (Tmk_proc_id == 0) {
    grid = Tmk_malloc(sizeof(float) * (size_t)rows * (size_t)cols);
    Tmk_distribute(&grid, sizeof grid);
  }
  Tmk_barrier(0);
  /* This node's band of interior rows [first, last). */
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
  float *scratch = malloc(sizeof(float) * (size_t)(last - first + 1) * (size_t)cols);
  for (int it = 0; it < iterations; ++it) {
    TMK_SCOPE_BEGIN("relax");
    for (int r = first; r < last; ++r)
      relax_row(&grid[(r - 1) * cols], &grid[r * cols], &grid[(r + 1) * cols], &scratch[(r - first) * cols],
                cols);
    TMK_SCOPE_END();
    Tmk_barrier(1);
    TMK_SCOPE_BEGIN("update");
    for (int r = first; r < last; ++r)
      memcpy(&grid[r * cols + 1], &scratch[(r - first) * cols + 1], sizeof(float) * (size_t)(cols - 2));
    TMK_SCOPE_END();
    Tmk_barrier(2);
  }
  int status = 0;
  if (Tmk_proc_id == 0) {
    double sum = 0; /* reads every page: only with the check */
    for (int i = 0; check_result && i < rows * cols; ++i) sum += grid[i];
    const int ok = !check_result || check(rows, cols, iterations);
    printf("jacobi %dx%d, %d iterations on %u node(s): checksum %.6f, %s\n", rows, cols, iterations,
           Tmk_nprocs, sum,
           !check_result ? "not checked" : ok ? "verified" : "WRONG (differs from the sequential iteration)");
    status = ok ? 0 : 1;
  }
  free(scratch);
  Tmk_exit(status);
}
