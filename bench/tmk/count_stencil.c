#include <stdio.h>
#include <stdlib.h>
#include <time.h>
/* The overhead benchmark of ncp2_count_pass: a Jacobi 2D stencil (N x N doubles, ITERS sweeps).
   Prints the sweeps' wall time; see measure_overhead.sh. */
#ifndef N
#define N 1024
#endif
#ifndef ITERS
#define ITERS 20
#endif
static double A[N][N], B[N][N];
static void sweep(double (*restrict dst)[N], double (*restrict src)[N]) {
  for (int i = 1; i < N - 1; i++)
    for (int j = 1; j < N - 1; j++)
      dst[i][j] = 0.25 * (src[i - 1][j] + src[i + 1][j] + src[i][j - 1] + src[i][j + 1]);
}
int main(void) {
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) A[i][j] = B[i][j] = (i == 0 || j == 0) ? 1.0 : 0.0;
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  for (int it = 0; it < ITERS; it += 2) { sweep(B, A); sweep(A, B); }
  clock_gettime(CLOCK_MONOTONIC, &t1);
  double sum = 0;
  for (int i = 0; i < N; i++) for (int j = 0; j < N; j++) sum += A[i][j];
  printf("kernel %.6f s checksum %.9g\n", (t1.tv_sec - t0.tv_sec) + 1e-9 * (t1.tv_nsec - t0.tv_nsec), sum);
  return 0;
}
