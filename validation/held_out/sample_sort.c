/* Parallel sample sort of N 32-bit keys: a local sort, splitters from samples, buckets per node.
 *
 * The keys (a hash of the index) lie in a shared array; each node owns a contiguous slice of it.
 * Local: each node copies its slice into private memory, sorts it (qsort) and writes
 * `oversampling` evenly spaced samples of it into its row of a shared sample table. Barrier.
 * Splitters: node 0 sorts all the samples and writes every oversampling-th one as the N - 1
 * splitters. Barrier. Count: bucket d holds the keys above splitter d - 1 up to splitter d and
 * belongs to node d; each node finds where its sorted slice crosses the splitters and writes how
 * many of its keys go to each bucket into its row of a shared count table. Barrier. Send: the
 * buckets lie one after the other in a second shared array, each node's run inside a bucket after
 * those of the nodes before it; each node copies its runs there (memcpy), so every bucket is
 * written by every node. Barrier. Bucket: each node sorts its bucket (copied out, qsort, copied
 * back). Barrier. The buckets in order are then the sorted keys: node 0 checks them against the
 * input sorted sequentially in private memory and prints how even the buckets came out.
 *
 * Arguments: n oversampling check (default 1048576 64 1; check 0 skips node 0's check). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tmk.h>

struct sort {
  uint32_t *keys;      /* n: the input, slice p owned by node p */
  uint32_t *buckets;   /* n: bucket 0, bucket 1, ... (node d sorts bucket d) */
  uint32_t *samples;   /* nodes x oversampling, row p written by node p */
  uint32_t *splitters; /* nodes - 1, written by node 0 */
  uint32_t *counts;    /* nodes x nodes: counts[p * nodes + d], keys node p sends to bucket d */
};
static struct sort *s; /* shared; node 0 allocates, Tmk_distribute gives the pointer */

static uint32_t key_of(uint32_t i) {
  uint32_t h = i * 0x85ebca6bu + 0x165667b1u;
  h ^= h >> 13;
  h *= 0xc2b2ae35u;
  h ^= h >> 16;
  h *= 0x27d4eb2fu;
  h ^= h >> 15;
  return h;
}

static int compare_keys(const void *a, const void *b) {
  const uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
  return (x > y) - (x < y);
}

static void *private_array(size_t count, size_t size) {
  void *p = malloc(count > 0 ? count * size : 1);
  if (!p) {
    fprintf(stderr, "sample_sort: node %u is out of private memory\n", Tmk_proc_id);
    exit(1);
  }
  return p;
}

/* This node's slice [*lo, *hi) of n keys. */
static void slice_of(int n, int *lo, int *hi) {
  *lo = (int)((int64_t)n * Tmk_proc_id / Tmk_nprocs);
  *hi = (int)((int64_t)n * (Tmk_proc_id + 1) / Tmk_nprocs);
}

/* The first of the m sorted keys above `splitter`. */
static int upper_bound(const uint32_t *sorted, int m, uint32_t splitter) {
  int lo = 0, hi = m;
  while (lo < hi) {
    const int mid = lo + (hi - lo) / 2;
    if (sorted[mid] <= splitter)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

/* Copies this node's slice into `mine`, sorts it and publishes its samples (an empty slice gives
 * the largest key as every sample: any splitters sort correctly, they only balance worse). */
static void sort_locally(int n, int oversampling, uint32_t *mine, int *m) {
  int lo, hi;
  slice_of(n, &lo, &hi);
  *m = hi - lo;
  memcpy(mine, &s->keys[lo], (size_t)*m * sizeof *mine);
  qsort(mine, (size_t)*m, sizeof *mine, compare_keys);
  uint32_t *row = &s->samples[(size_t)Tmk_proc_id * (size_t)oversampling];
  for (int j = 0; j < oversampling; ++j)
    row[j] = *m > 0 ? mine[(int)((2 * (int64_t)j + 1) * *m / (2 * (int64_t)oversampling))] : UINT32_MAX;
}

/* Node 0: every oversampling-th of all the samples, sorted, is a splitter. */
static void choose_splitters(int oversampling) {
  const size_t total = (size_t)Tmk_nprocs * (size_t)oversampling;
  uint32_t *all = private_array(total, sizeof *all);
  memcpy(all, s->samples, total * sizeof *all);
  qsort(all, total, sizeof *all, compare_keys);
  for (unsigned d = 0; d + 1 < Tmk_nprocs; ++d) s->splitters[d] = all[(size_t)(d + 1) * (size_t)oversampling];
  free(all);
}

/* Writes how many of this node's m sorted keys go to each bucket; `end[d]` is where its run for
 * bucket d ends in `mine`. */
static void count_runs(const uint32_t *mine, int m, int *end) {
  const unsigned nodes = Tmk_nprocs;
  int begin = 0;
  for (unsigned d = 0; d < nodes; ++d) {
    end[d] = d + 1 < nodes ? upper_bound(mine, m, s->splitters[d]) : m;
    s->counts[(size_t)Tmk_proc_id * nodes + d] = (uint32_t)(end[d] - begin);
    begin = end[d];
  }
}

/* Where each bucket starts in the bucket array: start[d] for d in 0 .. nodes (start[nodes] = n). */
static void bucket_starts(size_t *start) {
  const unsigned nodes = Tmk_nprocs;
  start[0] = 0;
  for (unsigned d = 0; d < nodes; ++d) {
    start[d + 1] = start[d];
    for (unsigned p = 0; p < nodes; ++p) start[d + 1] += s->counts[(size_t)p * nodes + d];
  }
}

/* Copies this node's run for every bucket to its place: after the runs of the nodes before it. */
static void send_runs(const uint32_t *mine, const int *end, const size_t *start) {
  const unsigned nodes = Tmk_nprocs;
  int begin = 0;
  for (unsigned d = 0; d < nodes; ++d) {
    size_t at = start[d];
    for (unsigned p = 0; p < Tmk_proc_id; ++p) at += s->counts[(size_t)p * nodes + d];
    memcpy(&s->buckets[at], &mine[begin], (size_t)(end[d] - begin) * sizeof *mine);
    begin = end[d];
  }
}

static void sort_bucket(const size_t *start_of) {
  const size_t start = start_of[Tmk_proc_id], size = start_of[Tmk_proc_id + 1] - start;
  uint32_t *bucket = private_array(size, sizeof *bucket);
  memcpy(bucket, &s->buckets[start], size * sizeof *bucket);
  qsort(bucket, size, sizeof *bucket, compare_keys);
  memcpy(&s->buckets[start], bucket, size * sizeof *bucket);
  free(bucket);
}

static void sample_sort(int n, int oversampling) {
  uint32_t *mine = private_array((size_t)n / Tmk_nprocs + 1, sizeof *mine);
  int *end = private_array(Tmk_nprocs, sizeof *end);
  size_t *start = private_array((size_t)Tmk_nprocs + 1, sizeof *start);
  int m = 0;
  TMK_SCOPE_BEGIN("local sort");
  sort_locally(n, oversampling, mine, &m);
  TMK_SCOPE_END();
  Tmk_barrier(1);
  if (Tmk_proc_id == 0) {
    TMK_SCOPE_BEGIN("splitters");
    choose_splitters(oversampling);
    TMK_SCOPE_END();
  }
  Tmk_barrier(2);
  TMK_SCOPE_BEGIN("count");
  count_runs(mine, m, end);
  TMK_SCOPE_END();
  Tmk_barrier(3);
  TMK_SCOPE_BEGIN("send");
  bucket_starts(start);
  send_runs(mine, end, start);
  TMK_SCOPE_END();
  Tmk_barrier(4);
  TMK_SCOPE_BEGIN("bucket sort");
  sort_bucket(start);
  TMK_SCOPE_END();
  Tmk_barrier(5);
  free(start);
  free(end);
  free(mine);
}

static int check(int n) {
  uint32_t *expected = private_array((size_t)n, sizeof *expected);
  for (int i = 0; i < n; ++i) expected[i] = key_of((uint32_t)i);
  qsort(expected, (size_t)n, sizeof *expected, compare_keys);
  const int same = memcmp(expected, s->buckets, (size_t)n * sizeof *expected) == 0;
  free(expected);
  return same;
}

/* The largest bucket against an even share, e.g. 1.07. */
static double imbalance(int n) {
  size_t *start = private_array((size_t)Tmk_nprocs + 1, sizeof *start);
  bucket_starts(start);
  size_t largest = 0;
  for (unsigned d = 0; d < Tmk_nprocs; ++d)
    if (start[d + 1] - start[d] > largest) largest = start[d + 1] - start[d];
  free(start);
  return (double)largest * Tmk_nprocs / n;
}

/* Argument `index`, or `fallback` when absent; 0 when it is not a whole number in [low, high]. */
static int argument(int argc, char **argv, int index, long fallback, long low, long high, long *value) {
  *value = fallback;
  if (argc <= index) return 1;
  char *end = NULL;
  *value = strtol(argv[index], &end, 10);
  return end != argv[index] && *end == '\0' && *value >= low && *value <= high;
}

int main(int argc, char **argv) {
  Tmk_startup(argc, argv);
  long n = 0, oversampling = 0, check_result = 0;
  if (!argument(argc, argv, 1, 1048576, 1, 1 << 24, &n) || !argument(argc, argv, 2, 64, 1, 4096, &oversampling) ||
      !argument(argc, argv, 3, 1, 0, 1, &check_result) || Tmk_nprocs > 4096) {
    if (Tmk_proc_id == 0)
      fprintf(stderr, "usage: sample_sort [1 <= n <= 16777216] [1 <= oversampling <= 4096] [check 0|1]; "
                      "at most 4096 nodes\n");
    Tmk_exit(2);
  }
  const size_t nodes = Tmk_nprocs;
  if (Tmk_proc_id == 0) {
    s = Tmk_malloc(sizeof *s);
    s->keys = Tmk_malloc((size_t)n * sizeof(uint32_t));
    s->buckets = Tmk_malloc((size_t)n * sizeof(uint32_t));
    s->samples = Tmk_malloc(nodes * (size_t)oversampling * sizeof(uint32_t));
    s->splitters = Tmk_malloc(nodes * sizeof(uint32_t)); /* nodes - 1 used; never 0 bytes */
    s->counts = Tmk_malloc(nodes * nodes * sizeof(uint32_t));
    Tmk_distribute(&s, sizeof s);
  }
  Tmk_barrier(0);
  int lo, hi;
  slice_of((int)n, &lo, &hi);
  TMK_SCOPE_BEGIN("input");
  for (int i = lo; i < hi; ++i) s->keys[i] = key_of((uint32_t)i);
  TMK_SCOPE_END();
  Tmk_barrier(0);
  sample_sort((int)n, (int)oversampling);
  int status = 0;
  if (Tmk_proc_id == 0) {
    const double balance = imbalance((int)n);
    if (check_result) {
      const int ok = check((int)n);
      printf("sample_sort: %ld keys, oversampling %ld on %u node(s), largest bucket %.2f x even: %s\n", n,
             oversampling, Tmk_nprocs, balance, ok ? "verified" : "WRONG");
      status = ok ? 0 : 1;
    } else {
      printf("sample_sort: %ld keys, oversampling %ld on %u node(s), largest bucket %.2f x even: not checked\n", n,
             oversampling, Tmk_nprocs, balance);
    }
  }
  Tmk_exit(status);
}
