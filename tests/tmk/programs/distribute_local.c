/* Tmk_distribute of a local variable: refused by name (tests/tmk/programs_test.sh). A local's
 * address on node 0's stack holds something else on the other nodes. */
#include <tmk.h>

int main(int argc, char **argv) {
  Tmk_startup(argc, argv);
  long *shared = 0;
  if (Tmk_proc_id == 0) {
    shared = Tmk_malloc(64 * sizeof *shared);
    Tmk_distribute(&shared, sizeof shared);
  }
  Tmk_barrier(0);
  shared[Tmk_proc_id] = 1;
  Tmk_exit(0);
}
