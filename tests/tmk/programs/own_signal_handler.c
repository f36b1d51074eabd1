/* A program with a signal handler of its own (tests/tmk/programs_test.sh,
 * tests/validation/cli_test.sh): the fiber runner refuses it, processes run it. The measured time
 * model and ncp2 validate time a program as the processes of its own executable, so both run it
 * without being told the runner. */
#include <signal.h>
#include <stdio.h>
#include <tmk.h>

static volatile sig_atomic_t caught;

static void on_usr1(int signal_number) {
  (void)signal_number;
  caught = caught + 1;
}

int main(int argc, char **argv) {
  Tmk_startup(argc, argv);
  struct sigaction action = {0};
  action.sa_handler = on_usr1;
  sigemptyset(&action.sa_mask);
  if (sigaction(SIGUSR1, &action, NULL) != 0) Tmk_exit(2);
  raise(SIGUSR1);
  volatile double sum = 0;
  for (int i = 0; i < 200000; ++i) sum += i * 0.5;
  Tmk_barrier(0);
  if (caught != 1) {
    fprintf(stderr, "node %u: the handler ran %d times\n", Tmk_proc_id, (int)caught);
    Tmk_exit(1);
  }
  Tmk_exit(0);
}
