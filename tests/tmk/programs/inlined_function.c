/* A function of the program inlined into main at -O2 (pair_force): its lines must sit under a
 * function scope named pair_force at -O0 and -O2 alike (issue 36, item 3). */
#include <stdio.h>
#include <tmk.h>

static inline long pair_force(long a, long b) {
  unsigned long h = (unsigned long)(a * 2654435761L) ^ (unsigned long)b;
  return (long)(h % 1000003u) - 500000;
}

/* A global: Tmk_distribute copies node 0's value to the same address on every node (a local's
 * address on the stack is not the same in every node's process). */
static long *force;

int main(int argc, char **argv) {
  Tmk_startup(argc, argv);
  if (Tmk_proc_id == 0) {
    force = Tmk_malloc(64 * sizeof *force);
    Tmk_distribute(&force, sizeof force);
  }
  Tmk_barrier(0);
  long sum = 0;
  for (long i = Tmk_proc_id; i < 64; i += Tmk_nprocs) {
    for (long j = 0; j < 200000; ++j) sum += pair_force(i, j);
    force[i] = sum;
  }
  Tmk_barrier(1);
  if (Tmk_proc_id == 0) printf("force[63] %ld\n", force[63]);
  Tmk_exit(0);
}
