/* Racy, in the phase after a barrier: in phase 1 every node writes its own slot (no race: one
 * writer per slot, and barrier 1 orders phase 1 before phase 2). In phase 2 every node reads its
 * left neighbour's slot, and node 1 also overwrites slot 2, which node 3 reads in the same phase.
 * Both accesses come after barrier 1 and before barrier 2 and nothing orders them: they race.
 * Node 2's phase-1 write of slot 2 does not race with either (barrier 1 orders it before both).
 * The read line is executed by every node, but only node 3's read overlaps node 1's write.
 * @test nodes=4 expect=race pairs=1-3 */
#include <stdio.h>
#include <tmk.h>

static int *grid; /* one slot per node, all in one page */

int main(int argc, char **argv) {
  Tmk_startup(argc, argv);
  if (Tmk_proc_id == 0) {
    grid = Tmk_malloc(4 * sizeof *grid);
    for (int i = 0; i < 4; ++i) grid[i] = 0;
    Tmk_distribute(&grid, sizeof grid);
  }
  Tmk_barrier(0);
  grid[Tmk_proc_id] = 10 * (int)Tmk_proc_id + 1; /* phase 1: each node its own slot */
  Tmk_barrier(1);
  int left = grid[(Tmk_proc_id + 3) % 4]; /* RACE read */
  if (Tmk_proc_id == 1) grid[2] = -1;     /* RACE write */
  Tmk_barrier(2);
  printf("node %u: left neighbour had %d\n", Tmk_proc_id, left);
  Tmk_exit(0);
}
