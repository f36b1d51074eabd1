/* Racy, writes under two different locks: node 0 updates the balance holding lock 1, node 1
 * holding lock 2. A lock orders only the critical sections of that same lock: a release of lock 1
 * is never acquired by node 1, so neither update happens before the other. (The same program
 * with one lock id for both is drf_locks_same_id.c.) Both nodes execute the racing line, which
 * reads and writes the balance.
 * @test nodes=2 expect=race pairs=0-1 */
#include <stdio.h>
#include <tmk.h>

struct account {
  long balance;
};
static struct account *acc;

static void deposit(unsigned lock, long amount) {
  Tmk_lock_acquire(lock);
  acc->balance += amount; /* RACE */
  Tmk_lock_release(lock);
}

int main(int argc, char **argv) {
  Tmk_startup(argc, argv);
  if (Tmk_proc_id == 0) {
    acc = Tmk_malloc(sizeof *acc);
    acc->balance = 0;
    Tmk_distribute(&acc, sizeof acc);
  }
  Tmk_barrier(0);
  deposit(Tmk_proc_id + 1, 10 * ((long)Tmk_proc_id + 1)); /* the bug: a lock per node */
  Tmk_barrier(1);
  printf("node %u: balance %ld\n", Tmk_proc_id, acc->balance);
  Tmk_exit(0);
}
