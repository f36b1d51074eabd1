/* Racy, a locked write against an unlocked read: node 1 writes the counter inside lock 3's
 * critical section; node 0 reads it without taking the lock. Only an acquire of lock 3 after
 * node 1's release would order node 0's read after the write; node 0 never acquires it, so the
 * read and the write are concurrent. Node 0 is the reader here (the report's first node reads).
 * @test nodes=2 expect=race pairs=0-1 */
#include <stdio.h>
#include <tmk.h>

struct stats {
  int hits;
};
static struct stats *st;
static int seen = -1;

int main(int argc, char **argv) {
  Tmk_startup(argc, argv);
  if (Tmk_proc_id == 0) {
    st = Tmk_malloc(sizeof *st);
    st->hits = 0;
    Tmk_distribute(&st, sizeof st);
  }
  Tmk_barrier(0);
  if (Tmk_proc_id == 1) {
    Tmk_lock_acquire(3);
    st->hits = 7; /* RACE write */
    Tmk_lock_release(3);
  } else {
    seen = st->hits; /* RACE read */
  }
  Tmk_barrier(1);
  printf("node %u: saw %d, now %d\n", Tmk_proc_id, seen, st->hits);
  Tmk_exit(0);
}
