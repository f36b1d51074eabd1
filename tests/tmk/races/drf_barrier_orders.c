/* Race-free, accesses on both sides of barriers: node 0 writes x before barrier 1; node 1 reads
 * it after barrier 1 and writes it; node 0 reads it after barrier 2. Everything before a barrier
 * (on any node) happens before everything after it (on any node), so every access to x is
 * ordered with the previous one. The counterpart of race_barrier_same_phase.c and
 * race_after_barrier.c.
 * @test nodes=2 expect=race-free */
#include <stdio.h>
#include <tmk.h>

static int *x;

int main(int argc, char **argv) {
  Tmk_startup(argc, argv);
  if (Tmk_proc_id == 0) {
    x = Tmk_malloc(sizeof *x);
    *x = 0;
    Tmk_distribute(&x, sizeof x);
  }
  Tmk_barrier(0);
  int ok = 1;
  if (Tmk_proc_id == 0) *x = 5;
  Tmk_barrier(1);
  if (Tmk_proc_id == 1) {
    ok = *x == 5;
    *x = 6;
  }
  Tmk_barrier(2);
  if (Tmk_proc_id == 0) ok = *x == 6;
  printf("node %u: %s\n", Tmk_proc_id, ok ? "saw the other's write" : "WRONG");
  Tmk_exit(ok ? 0 : 1);
}
