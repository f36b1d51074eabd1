/* Racy across a page boundary: an int array of more than 3 pages; node 0 fills it from the start
 * to 8 elements past a page boundary, node 1 from 8 elements before that boundary to the end.
 * The ranges overlap in 64 bytes, half on each side of the boundary, and nothing orders the two
 * loops: they race on both pages. drf_false_sharing.c splits an array between nodes without
 * overlap.
 * @test nodes=2 expect=race pairs=0-1 */
#include <stdint.h>
#include <stdio.h>
#include <tmk.h>

enum { N = 3 * 1024 + 64 };
static int *a;

int main(int argc, char **argv) {
  Tmk_startup(argc, argv);
  if (Tmk_proc_id == 0) {
    a = Tmk_malloc(N * sizeof *a);
    for (int i = 0; i < N; ++i) a[i] = 0;
    Tmk_distribute(&a, sizeof a);
  }
  Tmk_barrier(0);
  int b = 512; /* the first element at a 4096-byte boundary from element 512 on */
  while ((uintptr_t)&a[b] % 4096 != 0) ++b;
  if (Tmk_proc_id == 0)
    for (int i = 0; i < b + 8; ++i) a[i] = 1; /* RACE write */
  else
    for (int i = b - 8; i < N; ++i) a[i] = 2; /* RACE write */
  Tmk_barrier(1);
  printf("node %u: boundary at element %d: %d %d | %d %d\n", Tmk_proc_id, b, a[b - 9], a[b - 8], a[b + 7],
         a[b + 8]);
  Tmk_exit(0);
}
