/* Self-scheduled Mandelbrot set: a shared work counter under a lock, uneven work per row.
 *
 * The image is `width` x `height` iteration counts of the points of [-2.1, 0.7] x [-1.2, 1.2]
 * (at most `iterations` each), in shared memory. The rows near the middle cost many times those
 * at the edges, so a static split would leave nodes idle: instead a shared counter of the next
 * row to do, under lock 0, hands out `chunk` rows at a time; each node takes chunks until none is
 * left and writes its rows into the shared image (rows of different nodes share pages). After a
 * barrier node 0 computes the image again sequentially in private memory, compares it count by
 * count and prints its checksum.
 *
 * Arguments: width height iterations chunk check (default 512 384 3000 2 1; check 0 skips node
 * 0's check). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tmk.h>

struct image {
  int next_row; /* the first row nobody has taken yet (lock 0) */
  int rows_by_node[64]; /* rows each node computed (written by that node only): reported */
  uint16_t *counts; /* height x width */
};
static struct image *im; /* shared; node 0 allocates, Tmk_distribute gives the pointer */

static uint16_t escape_time(double cr, double ci, int iterations) {
  double zr = 0.0, zi = 0.0;
  int k = 0;
  while (k < iterations && zr * zr + zi * zi <= 4.0) {
    const double t = zr * zr - zi * zi + cr;
    zi = 2.0 * zr * zi + ci;
    zr = t;
    ++k;
  }
  return (uint16_t)k;
}

static void compute_row(uint16_t *row, int y, int width, int height, int iterations) {
  const double ci = -1.2 + 2.4 * y / height;
  for (int x = 0; x < width; ++x) row[x] = escape_time(-2.1 + 2.8 * x / width, ci, iterations);
}

/* The first of the next `chunk` rows, or `height` when every row is taken. */
static int take_rows(int chunk, int height) {
  Tmk_lock_acquire(0);
  const int first = im->next_row;
  if (first < height) im->next_row = first + chunk < height ? first + chunk : height;
  Tmk_lock_release(0);
  return first;
}

static uint64_t checksum(const uint16_t *counts, size_t n) {
  uint64_t h = 1469598103934665603ull;
  for (size_t i = 0; i < n; ++i) h = (h ^ counts[i]) * 1099511628211ull;
  return h;
}

static int check(int width, int height, int iterations, uint64_t *sum) {
  const size_t n = (size_t)width * (size_t)height;
  uint16_t *expected = malloc(n * sizeof *expected);
  if (!expected) return 0;
  for (int y = 0; y < height; ++y) compute_row(&expected[(size_t)y * (size_t)width], y, width, height, iterations);
  const int same = memcmp(expected, im->counts, n * sizeof *expected) == 0;
  *sum = checksum(expected, n);
  free(expected);
  return same;
}

int main(int argc, char **argv) {
  Tmk_startup(argc, argv);
  const int width = argc > 1 ? atoi(argv[1]) : 512;
  const int height = argc > 2 ? atoi(argv[2]) : 384;
  const int iterations = argc > 3 ? atoi(argv[3]) : 3000;
  const int chunk = argc > 4 ? atoi(argv[4]) : 2;
  const int check_result = argc > 5 ? atoi(argv[5]) : 1;
  if (width < 1 || height < 1 || (int64_t)width * height > (1 << 24) || iterations < 1 || iterations > 65535 ||
      chunk < 1 || Tmk_nprocs > 64) {
    if (Tmk_proc_id == 0)
      fprintf(stderr,
              "usage: mandelbrot [width >= 1] [height >= 1] (width x height <= 16777216) [1 <= iterations <= 65535] "
              "[chunk >= 1] [check 0|1]; at most 64 nodes\n");
    Tmk_exit(2);
  }
  if (Tmk_proc_id == 0) {
    im = Tmk_malloc(sizeof *im);
    memset(im, 0, sizeof *im);
    im->counts = Tmk_malloc((size_t)width * (size_t)height * sizeof *im->counts);
    Tmk_distribute(&im, sizeof im);
  }
  Tmk_barrier(0);
  TMK_SCOPE_BEGIN("rows");
  int rows = 0;
  for (int first = take_rows(chunk, height); first < height; first = take_rows(chunk, height)) {
    const int end = first + chunk < height ? first + chunk : height;
    for (int y = first; y < end; ++y, ++rows)
      compute_row(&im->counts[(size_t)y * (size_t)width], y, width, height, iterations);
  }
  im->rows_by_node[Tmk_proc_id] = rows;
  TMK_SCOPE_END();
  Tmk_barrier(1);
  int status = 0;
  if (Tmk_proc_id == 0) {
    char split[64 * 12] = "";
    for (unsigned p = 0; p < Tmk_nprocs; ++p)
      snprintf(split + strlen(split), sizeof split - strlen(split), "%s%d", p ? "/" : "", im->rows_by_node[p]);
    if (check_result) {
      uint64_t sum = 0;
      const int ok = check(width, height, iterations, &sum);
      printf("mandelbrot: %dx%d, %d iterations, chunks of %d on %u node(s) (rows %s): checksum %016llx %s\n", width,
             height, iterations, chunk, Tmk_nprocs, split, (unsigned long long)sum, ok ? "verified" : "WRONG");
      status = ok ? 0 : 1;
    } else {
      printf("mandelbrot: %dx%d, %d iterations, chunks of %d on %u node(s) (rows %s): not checked\n", width, height,
             iterations, chunk, Tmk_nprocs, split);
    }
  }
  Tmk_exit(status);
}
