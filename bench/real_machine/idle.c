/* An idle node for bench/real-machine-goals (issue 42): after a barrier every node computes for
 * SECONDS (default 1) without a request, then a barrier. What its agent uses of a core meanwhile is
 * what an idle server costs. Exit 0 always (no result to check). */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <tmk.h>

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int main(int argc, char** argv) {
  Tmk_startup(argc, argv);
  const double seconds = argc > 1 ? atof(argv[1]) : 1.0;
  Tmk_barrier(0);
  volatile double x = 0;
  const double t0 = now();
  while (now() - t0 < seconds)
    for (int i = 0; i < 1000; ++i) x += i * 0.5;
  Tmk_barrier(1);
  if (Tmk_proc_id == 0) printf("idle: %.1f s computed\n", seconds);
  Tmk_exit(0);
}
