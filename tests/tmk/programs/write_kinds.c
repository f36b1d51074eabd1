/* Every kind of write to shared memory, for the write guards (ncp2-cc's default,
 * tmk/instrument/write_guard_pass.cpp): each node writes its own block with plain and vectorized
 * stores, memcpy and memset across pages, memmove (never guarded), an 8-byte store across a page
 * boundary, atomics, libc (snprintf) and a function built without the guards - once on pages a
 * guarded store already faulted in and once on fresh ones; then a counter under a lock. After a
 * barrier node 0 reads everything and compares it with what it computes privately.
 * Arguments: rounds (default 3). Prints "write_kinds ok SUM" or exits 1. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tmk.h>

#define PAGE 4096
#define BLOCK (8 * PAGE) /* one node's block: 8 pages */

struct shared {
  long counter; /* under lock 0 */
  long cas;     /* compare-and-exchange target, under lock 0 */
  char pad[PAGE - 2 * sizeof(long)];
  unsigned char blocks[]; /* Tmk_nprocs blocks of BLOCK bytes */
};
static struct shared *s;

/* Built without the guards: its stores trap as code from another compiler would. */
__attribute__((annotate("ncp2_no_write_guards"), noinline)) static void unguarded_fill(unsigned char *at, int n,
                                                                                       int value) {
  for (int i = 0; i < n; ++i) at[i] = (unsigned char)(value + i);
}

static void write_block(unsigned char *b, unsigned me, int round) {
  for (int i = 0; i < PAGE; ++i) b[i] = (unsigned char)(me * 7 + round + i); /* page 0: a vector loop */
  double *d = (double *)(b + PAGE);                                          /* page 1: doubles */
  for (int i = 0; i < PAGE / 8; ++i) d[i] = me + round * 0.5 + i;
  unsigned char source[PAGE + 512];
  for (int i = 0; i < (int)sizeof source; ++i) source[i] = (unsigned char)(i * 3 + round);
  memcpy(b + 2 * PAGE + 100, source, sizeof source); /* pages 2-3: memcpy across a page */
  memset(b + 4 * PAGE - 50, (int)(me + round), 100); /* pages 3-4: memset across a page */
  memmove(b + 4 * PAGE + 60, b + 4 * PAGE + 10, 40); /* overlapping: never through the alias */
  const unsigned long long wide = 0x0102030405060708ULL * (me + 1) + (unsigned long long)round;
  memcpy(b + 5 * PAGE - 3, &wide, sizeof wide); /* an 8-byte store across pages 4-5 */
  snprintf((char *)b + 5 * PAGE + 200, 64, "node %u round %d", me, round); /* libc, unguarded */
  unguarded_fill(b + 5 * PAGE + 400, 300, (int)me + round); /* page 5: faulted in by guarded stores */
  unguarded_fill(b + 6 * PAGE, PAGE, (int)me * 3 + round);  /* page 6: fresh, its own write fault */
  __atomic_fetch_add((int *)(b + 7 * PAGE), 1, __ATOMIC_RELAXED); /* page 7: atomics */
}

static void expect_block(unsigned char *want, unsigned node, int rounds) {
  memset(want, 0, BLOCK);
  for (int round = 0; round < rounds; ++round) {
    int atomic = 0;
    memcpy(&atomic, want + 7 * PAGE, sizeof atomic);
    write_block(want, node, round);
    atomic += 1;
    memcpy(want + 7 * PAGE, &atomic, sizeof atomic);
  }
}

int main(int argc, char **argv) {
  Tmk_startup(argc, argv);
  const int rounds = argc > 1 ? atoi(argv[1]) : 3;
  const unsigned me = Tmk_proc_id;
  if (me == 0) {
    s = (struct shared *)Tmk_malloc(sizeof *s + (size_t)Tmk_nprocs * BLOCK);
    memset(s, 0, sizeof *s + (size_t)Tmk_nprocs * BLOCK);
    Tmk_distribute(&s, sizeof s);
  }
  Tmk_barrier(0);
  for (int round = 0; round < rounds; ++round) {
    unsigned char *b = s->blocks + (size_t)me * BLOCK;
    int atomic = 0;
    memcpy(&atomic, b + 7 * PAGE, sizeof atomic);
    write_block(b, me, round);
    Tmk_lock_acquire(0);
    s->counter += me + 1;
    long expected = s->cas;
    __atomic_compare_exchange_n(&s->cas, &expected, expected + 2, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
    Tmk_lock_release(0);
    Tmk_barrier(1);
  }
  if (me == 0) {
    unsigned char *want = (unsigned char *)malloc(BLOCK);
    unsigned long sum = 0;
    int bad = 0;
    for (unsigned node = 0; node < Tmk_nprocs; ++node) {
      expect_block(want, node, rounds);
      const unsigned char *got = s->blocks + (size_t)node * BLOCK;
      for (int i = 0; i < BLOCK; ++i) {
        if (got[i] != want[i] && bad++ < 5) fprintf(stderr, "node %u byte %d: %d, not %d\n", node, i, got[i], want[i]);
        sum += got[i] * (unsigned long)(i % 251 + 1);
      }
    }
    const long counter = (long)rounds * Tmk_nprocs * (Tmk_nprocs + 1) / 2;
    if (s->counter != counter || s->cas != 2L * rounds * Tmk_nprocs) {
      fprintf(stderr, "counter %ld (want %ld), cas %ld\n", s->counter, counter, s->cas);
      bad++;
    }
    free(want);
    if (bad) Tmk_exit(1);
    printf("write_kinds ok %lu\n", sum);
  }
  Tmk_exit(0);
}
