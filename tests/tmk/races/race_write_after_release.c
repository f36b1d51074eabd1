/* Racy, a write after the release that the reader acquires: node 0 sets the ready flag inside
 * lock 1 and then writes the data after releasing the lock. Node 1 polls the flag under lock 1
 * and, once it is set, reads the data. Acquiring lock 1 orders node 1 after everything node 0 did
 * before its release, not after: the data write follows the release, so the read and the write
 * race in every schedule. drf_lock_handoff.c writes the data before the release.
 * @test nodes=2 expect=race pairs=0-1 */
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
  int seen = -1, ok = 1;
  if (Tmk_proc_id == 0) {
    Tmk_lock_acquire(1);
    box->ready = 1;
    Tmk_lock_release(1);
    box->data = 42; /* RACE write */
  } else {
    ok = wait_for(1, &box->ready);
    seen = box->data; /* RACE read */
  }
  Tmk_barrier(1);
  printf("node %u: %s, saw %d\n", Tmk_proc_id, ok ? "flag seen" : "GAVE UP", seen);
  Tmk_exit(ok ? 0 : 1);
}
