/* A deliberately wrong program: what `ncp2 run` says when it deadlocks.
 *
 * Transfers between two shared accounts, each protected by its own lock. Node 0 moves money from
 * account A to B and takes lock A then lock B; node 1 moves money from B to A and takes lock B
 * then lock A. After the barrier both hold their first lock and wait forever for the other's; the
 * other nodes wait at the final barrier. ncp2 run stops with exit code 3 and says, for each node,
 * what it waits for, which node holds it and on which line that node took it:
 *
 *   node 0 PP: lock 2 at deadlock.c:27 (in transfer), held by node 1 which acquired it at
 *   deadlock.c:25 (in transfer)
 *
 * The fix: take the locks in one global order (the lower id first) on every node.
 * Arguments: none. */
#include <stdio.h>
#include <tmk.h>

enum { LOCK_A = 1, LOCK_B = 2 };

struct accounts {
  long a, b;
};
static struct accounts *acc;

static void transfer(unsigned from_lock, unsigned to_lock, long *from, long *to, long amount) {
  Tmk_lock_acquire(from_lock);
  Tmk_barrier(1); /* both nodes now hold their first lock: the classic lock-order deadlock */
  Tmk_lock_acquire(to_lock);
  *from -= amount;
  *to += amount;
  Tmk_lock_release(to_lock);
  Tmk_lock_release(from_lock);
}

int main(int argc, char **argv) {
  Tmk_startup(argc, argv);
  if (Tmk_proc_id == 0) {
    acc = Tmk_malloc(sizeof *acc);
    acc->a = acc->b = 100;
    Tmk_distribute(&acc, sizeof acc);
  }
  Tmk_barrier(0);
  if (Tmk_proc_id == 0) transfer(LOCK_A, LOCK_B, &acc->a, &acc->b, 10);
  else if (Tmk_proc_id == 1) transfer(LOCK_B, LOCK_A, &acc->b, &acc->a, 20);
  else Tmk_barrier(1);
  Tmk_barrier(2);
  if (Tmk_proc_id == 0) printf("a %ld b %ld\n", acc->a, acc->b);
  Tmk_exit(0);
}
