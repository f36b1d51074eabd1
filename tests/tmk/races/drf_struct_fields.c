/* Race-free, different fields of one struct: node 0 writes the record's id and total, node 1 its
 * count, in the same phase without a lock. id and count share an 8-byte word and the whole record
 * shares a page, but no byte is touched by both nodes: false sharing, not a race. The
 * counterpart of race_struct_field.c.
 * @test nodes=2 expect=race-free */
#include <stdio.h>
#include <tmk.h>

struct record {
  int id;
  int count;
  double total;
};
static struct record *r;

int main(int argc, char **argv) {
  Tmk_startup(argc, argv);
  if (Tmk_proc_id == 0) {
    r = Tmk_malloc(sizeof *r);
    r->id = 0;
    r->count = 0;
    r->total = 0;
    Tmk_distribute(&r, sizeof r);
  }
  Tmk_barrier(0);
  if (Tmk_proc_id == 0) {
    r->id = 7;
    r->total = 2.5;
  } else {
    r->count = 2;
  }
  Tmk_barrier(1);
  const int ok = r->id == 7 && r->count == 2 && r->total == 2.5;
  printf("node %u: id %d count %d total %g %s\n", Tmk_proc_id, r->id, r->count, r->total, ok ? "right" : "WRONG");
  Tmk_exit(ok ? 0 : 1);
}
