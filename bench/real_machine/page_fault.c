/* The page-fault round trip of a real run against the emulated one (bench/real-machine): node 0
 * writes one word of each of PAGES pages, a barrier, node 1 reads them (one diff fetch each);
 * ROUNDS times. Arguments: PAGES ROUNDS. Exit 0 when node 1 read every value. */
#include <stdio.h>
#include <stdlib.h>
#include <tmk.h>

enum { kWordsPerPage = 4096 / sizeof(long) };
static long *data;

int main(int argc, char **argv) {
  Tmk_startup(argc, argv);
  const int pages = argc > 1 ? atoi(argv[1]) : 64;
  const int rounds = argc > 2 ? atoi(argv[2]) : 20;
  if (Tmk_proc_id == 0) {
    data = Tmk_malloc((size_t)pages * 4096);
    Tmk_distribute(&data, sizeof data);
  }
  Tmk_barrier(0);
  long wrong = 0;
  for (int r = 1; r <= rounds; ++r) {
    if (Tmk_proc_id == 0)
      for (int p = 0; p < pages; ++p) data[(size_t)p * kWordsPerPage] = r;
    Tmk_barrier(1);
    if (Tmk_proc_id == 1)
      for (int p = 0; p < pages; ++p) wrong += data[(size_t)p * kWordsPerPage] != r;
    Tmk_barrier(2);
  }
  if (Tmk_proc_id == 1) printf("page_fault %d pages x %d rounds: %s\n", pages, rounds, wrong ? "WRONG" : "verified");
  Tmk_exit(wrong ? 1 : 0);
}
