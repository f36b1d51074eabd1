/* The round trip between a node process and the emulator (bench/tmk-faults): on one node, a lock
 * acquire and release pair is two requests whose emulation is cheap (the lock is local), so the
 * pair's wall time is two handoffs there and back plus little else. */
#include <stdio.h>
#include <time.h>
#include <tmk.h>

static long now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1000000000L + t.tv_nsec;
}

int main(int argc, char **argv) {
  Tmk_startup(argc, argv);
  const int pairs = 20000;
  const long t0 = now_ns();
  for (int i = 0; i < pairs; ++i) {
    Tmk_lock_acquire(0);
    Tmk_lock_release(0);
  }
  printf("lock_pair_ns %ld\n", (now_ns() - t0) / pairs);
  Tmk_exit(0);
}
