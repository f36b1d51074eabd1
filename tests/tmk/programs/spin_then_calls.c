/* The measured time model on a program (tests/tmk/programs_test.sh): each node spins 20 ms of
 * native code, then makes 2000 Tmk calls that compute almost nothing. Its computation must be the
 * ~20 ms the process ran, not the emulator's wall time, whose hand-offs to the process (tens of
 * microseconds each) would add more than 40 ms. */
#include <time.h>
#include <tmk.h>

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

int main(int argc, char **argv) {
  Tmk_startup(argc, argv);
  const double start = now_ms();
  volatile unsigned long spins = 0;
  while (now_ms() - start < 20.0) ++spins;
  const unsigned lock = Tmk_proc_id;
  for (int i = 0; i < 1000; ++i) {
    Tmk_lock_acquire(lock);
    Tmk_lock_release(lock);
  }
  Tmk_barrier(0);
  Tmk_exit(0);
}
