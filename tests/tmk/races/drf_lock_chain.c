/* Race-free, order carried through a third node: node 0 writes x (no lock) and then sets flag a
 * under lock 1; node 2 waits for flag a (lock 1) and then sets flag b under lock 2; node 1 waits
 * for flag b (lock 2) and reads x (no lock). Happens-before is transitive: node 0's write ->
 * its release of lock 1 -> node 2's acquire of lock 1 -> node 2's release of lock 2 -> node 1's
 * acquire of lock 2 -> the read, although nodes 0 and 1 never share a lock. The read must see
 * 42. The counterpart of race_chain_wrong_order.c.
 * @test nodes=3 expect=race-free */
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
  int ok = 1;
  if (Tmk_proc_id == 0) {
    c->x = 42;
    set_flag(1, &c->flag_a);
  } else if (Tmk_proc_id == 2) {
    ok = wait_for(1, &c->flag_a);
    set_flag(2, &c->flag_b);
  } else if (Tmk_proc_id == 1) {
    ok = wait_for(2, &c->flag_b) && c->x == 42;
  }
  Tmk_barrier(1);
  printf("node %u: %s\n", Tmk_proc_id, ok ? "ordered through the chain" : "WRONG");
  Tmk_exit(ok ? 0 : 1);
}
