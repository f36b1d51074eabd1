/* Racy between 2 of 8 nodes only: node 3 writes the mailbox while node 6 reads it, in the same
 * phase and without a lock. The other six nodes touch the same page (each writes its own slot,
 * after the mailbox accesses) without racing: different bytes are not a race, and the report
 * must name nodes 3 and 6 and no other pair.
 * @test nodes=8 expect=race pairs=3-6 */
#include <stdio.h>
#include <tmk.h>

struct board {
  int mailbox;
  int slot[8];
};
static struct board *b;
static int seen = -1;

int main(int argc, char **argv) {
  Tmk_startup(argc, argv);
  if (Tmk_proc_id == 0) {
    b = Tmk_malloc(sizeof *b);
    b->mailbox = 0;
    for (int i = 0; i < 8; ++i) b->slot[i] = -1;
    Tmk_distribute(&b, sizeof b);
  }
  Tmk_barrier(0);
  if (Tmk_proc_id == 3) b->mailbox = 33;   /* RACE write */
  if (Tmk_proc_id == 6) seen = b->mailbox; /* RACE read */
  b->slot[Tmk_proc_id] = (int)Tmk_proc_id; /* every node its own slot: false sharing only */
  Tmk_barrier(1);
  int ok = 1;
  for (unsigned i = 0; i < Tmk_nprocs; ++i) ok = ok && b->slot[i] == (int)i;
  printf("node %u: slots %s, saw %d, mailbox %d\n", Tmk_proc_id, ok ? "right" : "WRONG", seen, b->mailbox);
  Tmk_exit(ok ? 0 : 1);
}
