/* Private globals: every node has its own copy of the program's globals and statics, as a real
 * process would; shared memory is the only thing nodes share. Exit 0 when that holds. */
#include <stdio.h>
#include <tmk.h>

int node_global = -1;               /* initialized data */
static unsigned long node_static;   /* bss */
static int *shared_cell;

static int touch(void) {
  static int calls = 0; /* a function-local static */
  return ++calls;
}

int main(int argc, char **argv) {
  Tmk_startup(argc, argv);
  node_global = (int)Tmk_proc_id * 10;
  node_static = 1000u + Tmk_proc_id;
  for (unsigned i = 0; i <= Tmk_proc_id; ++i) touch();
  if (Tmk_proc_id == 0) {
    shared_cell = Tmk_malloc(sizeof *shared_cell);
    *shared_cell = 0;
    Tmk_distribute(&shared_cell, sizeof shared_cell);
  }
  Tmk_barrier(0);
  Tmk_lock_acquire(0);
  *shared_cell += 1;
  Tmk_lock_release(0);
  Tmk_barrier(1);
  int ok = node_global == (int)Tmk_proc_id * 10 && node_static == 1000u + Tmk_proc_id &&
           touch() == (int)Tmk_proc_id + 2 && *shared_cell == (int)Tmk_nprocs;
  printf("node %u: global %d static %lu shared %d %s\n", Tmk_proc_id, node_global, node_static, *shared_cell,
         ok ? "private" : "WRONG");
  Tmk_exit(ok ? 0 : 1);
}
