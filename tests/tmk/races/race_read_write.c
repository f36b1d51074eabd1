/* Racy, read-write: node 0 writes a value that node 1 reads, with no synchronization between
 * them after the barrier. The read may see the old or the new value: the write does not happen
 * before the read (no release by node 0 that node 1 acquires, no barrier in between) and the read
 * does not happen before the write.
 * Known limit at -O1: clang merges the two branches' stores into one that has no line of its own.
 * @test nodes=2 expect=race pairs=0-1 known-limit=O1 */
#include <stdio.h>
#include <tmk.h>

struct message {
  int value;
};
static struct message *msg;
static int seen = -1;

int main(int argc, char **argv) {
  Tmk_startup(argc, argv);
  if (Tmk_proc_id == 0) {
    msg = Tmk_malloc(sizeof *msg);
    msg->value = 0;
    Tmk_distribute(&msg, sizeof msg);
  }
  Tmk_barrier(0);
  if (Tmk_proc_id == 0)
    msg->value = 42; /* RACE write */
  else
    seen = msg->value; /* RACE read */
  Tmk_barrier(1);
  printf("node %u: saw %d, now %d\n", Tmk_proc_id, seen, msg->value);
  Tmk_exit(0);
}
