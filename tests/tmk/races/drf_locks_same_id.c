/* Race-free, every update under the same lock: 4 nodes add to one balance, each holding lock 1.
 * The critical sections of one lock are totally ordered (each acquire takes over the previous
 * release's knowledge), so every two updates are ordered by happens-before and none is lost.
 * The counterpart of race_locks_different_ids.c and race_increment_all.c.
 * @test nodes=4 expect=race-free */
#include <stdio.h>
#include <tmk.h>

struct account {
  long balance;
};
static struct account *acc;

static void deposit(unsigned lock, long amount) {
  Tmk_lock_acquire(lock);
  acc->balance += amount;
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
  deposit(1, 10 * ((long)Tmk_proc_id + 1));
  Tmk_barrier(1);
  const long n = Tmk_nprocs, want = 10 * n * (n + 1) / 2;
  printf("node %u: balance %ld (want %ld)\n", Tmk_proc_id, acc->balance, want);
  Tmk_exit(acc->balance == want ? 0 : 1);
}
