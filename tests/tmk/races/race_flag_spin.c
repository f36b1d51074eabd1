/* Racy, a flag handshake without locks: node 0 sets done = 1 when its work is finished; node 1
 * spins reading done. Without a lock (or barrier) between them nothing orders the store before
 * the loads: under lazy release consistency node 1 is not even guaranteed ever to see the 1. The
 * spin is bounded (the emulator runs nodes in virtual time; node 1 gives up after 100000 reads).
 * drf_lock_handoff.c is the correct handshake (the flag under a lock).
 * @test nodes=2 expect=race pairs=0-1 */
#include <stdio.h>
#include <tmk.h>

static volatile int *done;

int main(int argc, char **argv) {
  Tmk_startup(argc, argv);
  if (Tmk_proc_id == 0) {
    done = Tmk_malloc(sizeof *done);
    *done = 0;
    Tmk_distribute((const void *)&done, sizeof done);
  }
  Tmk_barrier(0);
  long spins = 0;
  if (Tmk_proc_id == 0) {
    volatile long work = 0; /* some work first: node 1 starts spinning before the store */
    for (int i = 0; i < 200000; ++i) work += i;
    *done = work > 0; /* RACE write */
  } else {
    while (spins < 100000 && !*done) ++spins; /* RACE read */
  }
  Tmk_barrier(1);
  printf("node %u: spun %ld times, done %d\n", Tmk_proc_id, spins, *done);
  Tmk_exit(0);
}
