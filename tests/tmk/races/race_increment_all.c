/* Racy on every pair of nodes: all 4 nodes increment one counter without a lock (a read and a
 * write each). Every two increments are concurrent, so each of the 6 pairs of nodes races, all
 * on the same line; updates are lost. drf_locks_same_id.c takes a lock around the increment.
 * @test nodes=4 expect=race pairs=0-1,0-2,0-3,1-2,1-3,2-3 */
#include <stdio.h>
#include <tmk.h>

static long *hits;

int main(int argc, char **argv) {
  Tmk_startup(argc, argv);
  if (Tmk_proc_id == 0) {
    hits = Tmk_malloc(sizeof *hits);
    *hits = 0;
    Tmk_distribute(&hits, sizeof hits);
  }
  Tmk_barrier(0);
  *hits += 1; /* RACE */
  Tmk_barrier(1);
  printf("node %u: %ld hits of %u\n", Tmk_proc_id, *hits, Tmk_nprocs);
  Tmk_exit(0);
}
