/* The built-in `barrier` workload as a user's program (bench/fiber-scale): every node computes
 * about `work` iterations, then enters a barrier, `episodes` times; no shared data. Run under the
 * fiber runner beside the built-in workload, the difference in memory is the runner's own per node.
 * usage: barriers [EPISODES [WORK]] */
#include <stdio.h>
#include <stdlib.h>
#include <tmk.h>

int main(int argc, char **argv) {
  Tmk_startup(argc, argv);
  const int episodes = argc > 1 ? atoi(argv[1]) : 10;
  const long work = argc > 2 ? atol(argv[2]) : 1000;
  volatile long sink = 0;
  for (int e = 0; e < episodes; ++e) {
    for (long i = 0; i < work + (long)((Tmk_proc_id * 7 + e) % 5) * work / 2; ++i) sink += i;
    Tmk_barrier(0);
  }
  if (Tmk_proc_id == 0) printf("%d barriers on %u nodes: done, verified\n", episodes, Tmk_nprocs);
  Tmk_exit(0);
}
