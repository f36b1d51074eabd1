/* Racy, write-write on one word: both nodes store to the same int between the same two barriers,
 * with no lock. Neither store happens before the other (the only synchronization is the barrier
 * both passed before storing), so the stores race; which value survives depends on the schedule.
 * Both nodes execute the racing line.
 * @test nodes=2 expect=race pairs=0-1
 * Prints RACE-ADDRESS: the first byte both stored to. */
#include <stdio.h>
#include <tmk.h>

static int *cell;

int main(int argc, char **argv) {
  Tmk_startup(argc, argv);
  if (Tmk_proc_id == 0) {
    cell = Tmk_malloc(sizeof *cell);
    *cell = 0;
    Tmk_distribute(&cell, sizeof cell);
    printf("RACE-ADDRESS %p\n", (void *)cell);
  }
  Tmk_barrier(0);
  *cell = (int)Tmk_proc_id + 1; /* RACE write */
  Tmk_barrier(1);
  printf("node %u: cell %d\n", Tmk_proc_id, *cell);
  Tmk_exit(0);
}
