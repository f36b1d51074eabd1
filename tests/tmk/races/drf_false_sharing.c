/* Race-free, false sharing on 8 nodes: an int array of 3000 elements (more than 2 pages) split in
 * 8 slices whose ends are not page-aligned, so several nodes write different parts of one page;
 * and an 8-byte tag word of which each node writes its own byte. No byte is written by two nodes
 * and nobody reads another's bytes before barrier 1: no race. The counterpart of
 * race_two_of_eight.c and race_page_boundary.c.
 * @test nodes=8 expect=race-free */
#include <stdio.h>
#include <tmk.h>

enum { N = 3000 };
struct shared {
  unsigned char tag[8];
  int a[N];
};
static struct shared *s;

int main(int argc, char **argv) {
  Tmk_startup(argc, argv);
  if (Tmk_proc_id == 0) {
    s = Tmk_malloc(sizeof *s);
    for (int i = 0; i < 8; ++i) s->tag[i] = 0;
    for (int i = 0; i < N; ++i) s->a[i] = -1;
    Tmk_distribute(&s, sizeof s);
  }
  Tmk_barrier(0);
  const unsigned me = Tmk_proc_id, n = Tmk_nprocs;
  for (unsigned i = me * N / n; i < (me + 1) * N / n; ++i) s->a[i] = (int)me;
  ((volatile unsigned char *)s->tag)[me] = (unsigned char)(me + 1);
  Tmk_barrier(1);
  int ok = 1;
  for (unsigned p = 0; p < n; ++p) {
    ok = ok && s->tag[p] == p + 1;
    for (unsigned i = p * N / n; i < (p + 1) * N / n; ++i) ok = ok && s->a[i] == (int)p;
  }
  printf("node %u: %s\n", Tmk_proc_id, ok ? "every slice right" : "WRONG");
  Tmk_exit(ok ? 0 : 1);
}
