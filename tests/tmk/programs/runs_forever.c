/* Node 1 loops forever without a Tmk call (tests/tmk/programs_test.sh: the run limits,
 * --max-virtual-time and --max-wall, stop it cleanly and name where each node was). */
#include <tmk.h>
volatile unsigned long spins;
static void spin(void) { for (;;) ++spins; }
int main(int argc, char **argv) {
  Tmk_startup(argc, argv);
  Tmk_barrier(0);
  if (Tmk_proc_id == 1) spin();
  Tmk_barrier(1);
  Tmk_exit(0);
}
