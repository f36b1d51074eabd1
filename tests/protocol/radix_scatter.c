/* A radix sort whose nodes scatter into interleaved sub-page positions (issue 41): every pass
 * each node counts the digits of its block of keys, publishes its histogram, and after a barrier
 * writes each key to its place in the output array. The places of one node's keys are spread
 * over the whole array, and neighbouring words of a page come from different nodes: every page of
 * the output has several concurrent writers, so every read of it after the barrier fetches diffs
 * from each. Barriers only: the order of every synchronization is fixed, and an emulated and a
 * real run must take the same protocol steps and record the same waits.
 *
 * Arguments: keys passes (default 4096 3). Node 0 checks the result against a sequential sort. */
#include <stdio.h>
#include <stdlib.h>
#include <tmk.h>

enum { kRadixBits = 4, kRadix = 1 << kRadixBits, kMaxNodes = 64 };

struct shared {
  unsigned *keys[2];                  /* the input of a pass, and its output */
  unsigned histogram[kMaxNodes][kRadix]; /* per node, the count of each digit in its block */
};
static struct shared *s;

static unsigned key_of(int i) {
  unsigned x = (unsigned)i * 2654435761u + 12345u;
  x ^= x >> 15;
  return x & 0xfffu;
}

static int compare(const void *a, const void *b) {
  const unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;
  return (x > y) - (x < y);
}

int main(int argc, char **argv) {
  Tmk_startup(argc, argv);
  const int keys = argc > 1 ? atoi(argv[1]) : 4096;
  const int passes = argc > 2 ? atoi(argv[2]) : 3;
  const int me = (int)Tmk_proc_id, n = (int)Tmk_nprocs;
  if (n > kMaxNodes || keys < n) {
    if (me == 0) fprintf(stderr, "radix_scatter: at most %d nodes and at least one key each\n", kMaxNodes);
    Tmk_exit(2);
  }
  if (me == 0) {
    s = (struct shared *)Tmk_malloc(sizeof *s);
    s->keys[0] = (unsigned *)Tmk_malloc(sizeof(unsigned) * (size_t)keys);
    s->keys[1] = (unsigned *)Tmk_malloc(sizeof(unsigned) * (size_t)keys);
    for (int i = 0; i < keys; ++i) s->keys[0][i] = key_of(i);
    Tmk_distribute(&s, sizeof s);
  }
  Tmk_barrier(0);
  /* Node i's block: the i-th n-th of the keys. Its places for one digit follow the blocks before it
   * (a stable sort), so each digit's run of the output is written by every node in turn, and the
   * runs of the 16 digits cut every page of the output among several writers. */
  const int first = (int)((long long)keys * me / n), last = (int)((long long)keys * (me + 1) / n);
  for (int pass = 0; pass < passes; ++pass) {
    const unsigned *in = s->keys[pass % 2];
    unsigned *out = s->keys[(pass + 1) % 2];
    const int shift = pass * kRadixBits;
    unsigned count[kRadix] = {0};
    for (int i = first; i < last; ++i) ++count[(in[i] >> shift) & (kRadix - 1)];
    for (int d = 0; d < kRadix; ++d) s->histogram[me][d] = count[d];
    Tmk_barrier(1);
    /* My first place for digit d: every key with a smaller digit, then the keys of digit d of the
     * nodes before me. */
    unsigned place[kRadix];
    unsigned before = 0;
    for (int d = 0; d < kRadix; ++d) {
      unsigned mine = before;
      for (int q = 0; q < n; ++q) {
        if (q == me) place[d] = mine;
        mine += s->histogram[q][d];
      }
      before = mine;
    }
    for (int i = first; i < last; ++i) out[place[(in[i] >> shift) & (kRadix - 1)]++] = in[i];
    Tmk_barrier(2);
  }
  if (me == 0) {
    const unsigned mask = passes * kRadixBits >= 32 ? ~0u : (1u << (passes * kRadixBits)) - 1;
    unsigned *expected = malloc(sizeof(unsigned) * (size_t)keys);
    for (int i = 0; i < keys; ++i) expected[i] = key_of(i) & mask; /* sorted by the digits sorted */
    qsort(expected, (size_t)keys, sizeof(unsigned), compare);
    const unsigned *result = s->keys[passes % 2];
    int wrong = 0;
    for (int i = 0; i < keys; ++i) wrong += (result[i] & mask) != expected[i];
    printf("radix_scatter: %d keys, %d passes, %d nodes: %s\n", keys, passes, n, wrong ? "WRONG" : "verified");
    free(expected);
    if (wrong) Tmk_exit(1);
  }
  Tmk_exit(0);
  return 0;
}
