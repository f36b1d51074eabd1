/* Race-free, concurrent reads: node 0 fills a table before barrier 0; then all 4 nodes read the
 * whole table at once and each writes its sum into its own result slot on the same page. Reads
 * never race with reads, the table's writes are ordered before them by barrier 0, and the result
 * slots have one writer each.
 * @test nodes=4 expect=race-free */
#include <stdio.h>
#include <tmk.h>

enum { N = 64 };
struct shared {
  long table[N];
  long result[8];
};
static struct shared *s;

int main(int argc, char **argv) {
  Tmk_startup(argc, argv);
  if (Tmk_proc_id == 0) {
    s = Tmk_malloc(sizeof *s);
    for (int i = 0; i < N; ++i) s->table[i] = i + 1;
    for (int i = 0; i < 8; ++i) s->result[i] = 0;
    Tmk_distribute(&s, sizeof s);
  }
  Tmk_barrier(0);
  long sum = 0;
  for (int i = 0; i < N; ++i) sum += s->table[i];
  s->result[Tmk_proc_id] = sum;
  Tmk_barrier(1);
  int ok = 1;
  for (unsigned p = 0; p < Tmk_nprocs; ++p) ok = ok && s->result[p] == N * (N + 1) / 2;
  printf("node %u: sum %ld %s\n", Tmk_proc_id, sum, ok ? "right" : "WRONG");
  Tmk_exit(ok ? 0 : 1);
}
