/* A program whose points of a sweep behave differently by node count (tests/sweep/).
 *
 *   behave_on_nodes fail N        node 0 exits with status 1 when run on N nodes
 *   behave_on_nodes wait N FILE   node 0 waits (in host time, up to 60 s) while FILE exists, when
 *                                 run on N nodes or more: a point that runs until the test lets it go
 *
 * Otherwise every node adds its id into a shared counter under a lock, and node 0 checks the sum. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tmk.h>
#include <unistd.h>

static int *sum; /* shared; node 0 allocates and distributes the pointer */

static void wait_while_exists(const char *file) {
  for (int tenths = 0; tenths < 600 && access(file, F_OK) == 0; ++tenths) usleep(100000);
}

int main(int argc, char **argv) {
  Tmk_startup(argc, argv);
  const char *mode = argc > 1 ? argv[1] : "";
  const unsigned nodes = argc > 2 ? (unsigned)atoi(argv[2]) : 0;
  if (Tmk_proc_id == 0) {
    sum = Tmk_malloc(sizeof *sum);
    *sum = 0;
    Tmk_distribute(&sum, sizeof sum);
  }
  Tmk_barrier(0);
  if (Tmk_proc_id == 0 && strcmp(mode, "fail") == 0 && Tmk_nprocs == nodes) {
    fprintf(stderr, "behave_on_nodes: failing on purpose on %u nodes\n", nodes);
    exit(1);
  }
  if (Tmk_proc_id == 0 && strcmp(mode, "wait") == 0 && Tmk_nprocs >= nodes && argc > 3) wait_while_exists(argv[3]);
  Tmk_lock_acquire(0);
  *sum += (int)Tmk_proc_id;
  Tmk_lock_release(0);
  Tmk_barrier(1);
  if (Tmk_proc_id == 0) {
    const int expected = (int)(Tmk_nprocs * (Tmk_nprocs - 1) / 2);
    printf("sum of ids %d on %u nodes (expected %d)\n", *sum, Tmk_nprocs, expected);
    if (*sum != expected) Tmk_exit(1);
  }
  Tmk_exit(0);
}
