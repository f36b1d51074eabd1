/* Racy on one field of a struct: node 0 writes the record's id and then its count; node 1 writes
 * the count too, in the same phase, without a lock. The count races; the id does not (one
 * writer). Node 0's racing store is not its first access to the page: the report must name the
 * count's line, not the id's. drf_struct_fields.c has each node write different fields.
 * Known limit (issue 16): node 0 is reported at its first write to the page (the id line).
 * @test nodes=2 expect=race pairs=0-1 known-limit=O1 */
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
    r->count = 1; /* RACE write */
  } else {
    r->count = 2; /* RACE write */
  }
  Tmk_barrier(1);
  printf("node %u: id %d count %d\n", Tmk_proc_id, r->id, r->count);
  Tmk_exit(0);
}
