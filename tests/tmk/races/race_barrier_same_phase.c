/* Racy, a write before a barrier against a read before the same barrier: node 0 writes x just
 * before arriving at barrier 1; node 1 reads x after barrier 0 and before barrier 1. A barrier
 * orders what comes before it on every node before what comes after it on every node, but it
 * orders nothing among the accesses of one phase: the write and the first read race. Node 1's
 * second read, after barrier 1, is ordered after the write (no race there).
 * @test nodes=2 expect=race pairs=0-1 */
#include <stdio.h>
#include <tmk.h>

static int *x;
static int before = -1, after = -1;

int main(int argc, char **argv) {
  Tmk_startup(argc, argv);
  if (Tmk_proc_id == 0) {
    x = Tmk_malloc(sizeof *x);
    *x = 0;
    Tmk_distribute(&x, sizeof x);
  }
  Tmk_barrier(0);
  if (Tmk_proc_id == 1) before = *x; /* RACE read */
  if (Tmk_proc_id == 0) *x = 5;      /* RACE write */
  Tmk_barrier(1);
  if (Tmk_proc_id == 1) after = *x; /* ordered after the write by barrier 1 */
  Tmk_barrier(2);
  printf("node %u: before %d after %d\n", Tmk_proc_id, before, after);
  Tmk_exit(after == 5 || Tmk_proc_id != 1 ? 0 : 1);
}
