/* Racy, a lock chain in the wrong order: node 0 writes x and then sets flag a under lock 1;
 * node 2 sets flag b under lock 2 first and only then waits for flag a; node 1 waits for flag b
 * and reads x. Node 1's read is ordered after node 2's release of lock 2, which came before node
 * 2 acquired lock 1 from node 0: nothing links node 0's write to node 1's read, so they race
 * (whatever the timing). drf_lock_chain.c is the same program with node 2's two steps swapped.
 * @test nodes=3 expect=race pairs=0-1 */
#include <stdio.h>
#include <tmk.h>

struct chain {
  int flag_a; /* lock 1 */
  int flag_b; /* lock 2 */
  int x;
};
static struct chain *c;

/* Polls *flag under `lock` until it is set; bounded (0: gave up). */
static int wait_for(unsigned lock, const int *flag) {
  for (long tries = 0; tries < 1000000; ++tries) {
    Tmk_lock_acquire(lock);
    const int set = *flag;
    Tmk_lock_release(lock);
    if (set) return 1;
  }
  return 0;
}

static void set_flag(unsigned lock, int *flag) {
  Tmk_lock_acquire(lock);
  *flag = 1;
  Tmk_lock_release(lock);
}

int main(int argc, char **argv) {
  Tmk_startup(argc, argv);
  if (Tmk_proc_id == 0) {
    c = Tmk_malloc(sizeof *c);
    c->flag_a = c->flag_b = c->x = 0;
    Tmk_distribute(&c, sizeof c);
  }
  Tmk_barrier(0);
  int ok = 1, seen = -1;
  if (Tmk_proc_id == 0) {
    c->x = 42; /* RACE write */
    set_flag(1, &c->flag_a);
  } else if (Tmk_proc_id == 2) {
    set_flag(2, &c->flag_b); /* the bug: before waiting for node 0 */
    ok = wait_for(1, &c->flag_a);
  } else if (Tmk_proc_id == 1) {
    ok = wait_for(2, &c->flag_b);
    seen = c->x; /* RACE read */
  }
  Tmk_barrier(1);
  printf("node %u: %s, saw %d\n", Tmk_proc_id, ok ? "flags seen" : "GAVE UP", seen);
  Tmk_exit(ok ? 0 : 1);
}
