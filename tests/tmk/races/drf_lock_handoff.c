/* Race-free, a flag handshake through a lock: node 0 writes the data (no lock) and then sets the
 * ready flag inside lock 1; node 1 polls the flag under lock 1 and, once it is set, reads the data
 * (no lock). The data write comes before node 0's release, the release before node 1's acquire
 * that saw the flag, and that acquire before the read: write -> release -> acquire -> read, so the
 * read is ordered after the write and must see 42. The counterpart of race_write_after_release.c
 * and race_flag_spin.c.
 * @test nodes=2 expect=race-free */
#include <stdio.h>
#include <tmk.h>

struct mailbox {
  int ready; /* protected by lock 1 */
  int data;
};
static struct mailbox *box;

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

int main(int argc, char **argv) {
  Tmk_startup(argc, argv);
  if (Tmk_proc_id == 0) {
    box = Tmk_malloc(sizeof *box);
    box->ready = 0;
    box->data = 0;
    Tmk_distribute(&box, sizeof box);
  }
  Tmk_barrier(0);
  int ok = 1;
  if (Tmk_proc_id == 0) {
    box->data = 42;
    Tmk_lock_acquire(1);
    box->ready = 1;
    Tmk_lock_release(1);
  } else {
    ok = wait_for(1, &box->ready) && box->data == 42;
  }
  Tmk_barrier(1);
  printf("node %u: %s\n", Tmk_proc_id, ok ? "handed off" : "WRONG");
  Tmk_exit(ok ? 0 : 1);
}
