/* LSD radix sort of N 32-bit keys: the scatter into interleaved positions of a shared array.
 *
 * The keys (a hash of the index) live in one of two shared arrays; each node owns a contiguous
 * slice of it. A pass sorts by one digit of `bits` bits: each node counts the digits of its slice
 * privately and writes the counts into its own row of a shared histogram table (the rows share
 * pages); after a barrier every node reads all the rows and computes, privately, where each of
 * its digits starts in the output (the digits below it, then the same digit of the nodes before
 * it: a stable sort); then it scatters its keys there. The
 * nodes' runs of each digit lie side by side, so every page of the output is written by every
 * node at once (false sharing: multiple writers, one diff each), and the next pass reads its
 * slice from pages all of them wrote. Barrier, swap the arrays, next digit. After the last pass
 * node 0 checks the result against the input sorted sequentially (qsort) in private memory.
 *
 * Arguments: n bits check (default 1048576 8 1; 1 <= bits <= 16; check 0 skips node 0's check). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tmk.h>

struct sort {
  uint32_t *keys[2]; /* the pass's input and output, swapped after each pass */
  uint32_t *counts;  /* nodes x radix: each node's digit counts of its slice (row written by it) */
};
static struct sort *s; /* shared; node 0 allocates, Tmk_distribute gives the pointer */

static uint32_t key_of(uint32_t i) {
  uint32_t h = (i + 0x9e3779b9u) * 2654435761u;
  h ^= h >> 15;
  h *= 0x2c1b3c6du;
  h ^= h >> 12;
  h *= 0x297a2d39u;
  h ^= h >> 15;
  return h;
}

static int compare_keys(const void *a, const void *b) {
  const uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
  return (x > y) - (x < y);
}

/* This node's slice [*lo, *hi) of n keys. */
static void slice_of(int n, int *lo, int *hi) {
  *lo = (int)((int64_t)n * Tmk_proc_id / Tmk_nprocs);
  *hi = (int)((int64_t)n * (Tmk_proc_id + 1) / Tmk_nprocs);
}

/* Where this node's keys of each digit start in the output: every node's digits below it, then
 * the same digit of the nodes before this one. */
static void start_positions(int radix, uint32_t *start) {
  uint32_t at = 0;
  for (int d = 0; d < radix; ++d) {
    for (unsigned p = 0; p < Tmk_nprocs; ++p) {
      if (p == Tmk_proc_id) start[d] = at;
      at += s->counts[(size_t)p * (size_t)radix + (size_t)d];
    }
  }
}

/* One pass; `start` is private scratch of radix entries. */
static void pass(int n, int bits, int shift, int from, uint32_t *start) {
  const int radix = 1 << bits;
  const uint32_t mask = (uint32_t)radix - 1;
  const uint32_t *in = s->keys[from];
  uint32_t *out = s->keys[1 - from];
  int lo, hi;
  slice_of(n, &lo, &hi);
  TMK_SCOPE_BEGIN("histogram");
  memset(start, 0, (size_t)radix * sizeof *start); /* counted privately, then published at once */
  for (int i = lo; i < hi; ++i) ++start[(in[i] >> shift) & mask];
  memcpy(&s->counts[(size_t)Tmk_proc_id * (size_t)radix], start, (size_t)radix * sizeof *start);
  TMK_SCOPE_END();
  Tmk_barrier(1);
  TMK_SCOPE_BEGIN("scatter");
  start_positions(radix, start);
  for (int i = lo; i < hi; ++i) {
    const uint32_t key = in[i];
    out[start[(key >> shift) & mask]++] = key;
  }
  TMK_SCOPE_END();
  Tmk_barrier(2);
}

static int check(int n, const uint32_t *sorted) {
  uint32_t *expected = malloc((size_t)n * sizeof *expected);
  if (!expected) return 0;
  for (int i = 0; i < n; ++i) expected[i] = key_of((uint32_t)i);
  qsort(expected, (size_t)n, sizeof *expected, compare_keys);
  const int same = memcmp(expected, sorted, (size_t)n * sizeof *expected) == 0;
  free(expected);
  return same;
}

int main(int argc, char **argv) {
  Tmk_startup(argc, argv);
  const int n = argc > 1 ? atoi(argv[1]) : 1048576;
  const int bits = argc > 2 ? atoi(argv[2]) : 8;
  const int check_result = argc > 3 ? atoi(argv[3]) : 1;
  if (n < 1 || n > (1 << 26) || bits < 1 || bits > 16) {
    if (Tmk_proc_id == 0) fprintf(stderr, "usage: radix_sort [1 <= n <= 67108864] [1 <= bits <= 16] [check 0|1]\n");
    Tmk_exit(2);
  }
  const int radix = 1 << bits;
  if (Tmk_proc_id == 0) {
    s = Tmk_malloc(sizeof *s);
    s->keys[0] = Tmk_malloc((size_t)n * sizeof(uint32_t));
    s->keys[1] = Tmk_malloc((size_t)n * sizeof(uint32_t));
    s->counts = Tmk_malloc((size_t)Tmk_nprocs * (size_t)radix * sizeof(uint32_t));
    Tmk_distribute(&s, sizeof s);
  }
  Tmk_barrier(0);
  int lo, hi;
  slice_of(n, &lo, &hi);
  TMK_SCOPE_BEGIN("input");
  for (int i = lo; i < hi; ++i) s->keys[0][i] = key_of((uint32_t)i);
  TMK_SCOPE_END();
  Tmk_barrier(0);
  uint32_t *start = malloc((size_t)radix * sizeof *start);
  if (!start) {
    fprintf(stderr, "radix_sort: out of private memory\n");
    Tmk_exit(1);
  }
  int from = 0;
  for (int shift = 0; shift < 32; shift += bits) {
    pass(n, bits, shift, from, start);
    from = 1 - from;
  }
  free(start);
  int status = 0;
  if (Tmk_proc_id == 0) {
    const int passes = (32 + bits - 1) / bits;
    if (check_result) {
      const int ok = check(n, s->keys[from]);
      printf("radix_sort: %d keys, %d passes of %d bits on %u node(s): %s\n", n, passes, bits, Tmk_nprocs,
             ok ? "verified" : "WRONG");
      status = ok ? 0 : 1;
    } else {
      printf("radix_sort: %d keys, %d passes of %d bits on %u node(s): not checked\n", n, passes, bits, Tmk_nprocs);
    }
  }
  Tmk_exit(status);
}
