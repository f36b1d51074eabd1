/* Parallel quicksort with a shared task stack, TreadMarks' QSort.
 *
 * The array (values from a hash of the index, written by node 0) and a stack of subarrays to sort
 * live in shared memory; the stack and the count of elements in their final position are
 * protected by lock 0. A node pops a subarray; if it has at most `threshold` elements it
 * bubble-sorts it (as the TreadMarks QSort did) and adds its length to the count; otherwise it
 * partitions it, pushes the larger part for any node to take and keeps partitioning the smaller.
 * A node that finds the stack empty does a little private work and asks again (under the lock);
 * everything is done when the count reaches n. After a barrier, node 0 checks that the array is
 * sorted and holds the same values as the input (same sum and xor).
 *
 * Arguments: n threshold (default 65536 1024; threshold >= 2). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <tmk.h>

struct task {
  int lo, hi; /* [lo, hi) */
};
struct work {
  int32_t *data;
  struct task *stack;
  int top;   /* tasks on the stack */
  int done;  /* elements in their final position */
};
static struct work *w;            /* shared; node 0 allocates, Tmk_distribute gives the pointer */
static volatile unsigned idle_work; /* the private computation between polls of an empty stack */

static int32_t value(int i) {
  uint32_t h = (uint32_t)i * 2654435761u;
  h ^= h >> 16;
  h *= 0x45d9f3bu;
  h ^= h >> 16;
  return (int32_t)h;
}

static void bubble(int32_t *a, int lo, int hi) {
  for (int end = hi - 1; end > lo; --end)
    for (int i = lo; i < end; ++i)
      if (a[i] > a[i + 1]) {
        int32_t t = a[i];
        a[i] = a[i + 1];
        a[i + 1] = t;
      }
}

/* Hoare-style partition around the median of three; returns the split [lo, m) [m, hi). */
static int partition(int32_t *a, int lo, int hi) {
  int32_t x = a[lo], y = a[lo + (hi - lo) / 2], z = a[hi - 1];
  int32_t pivot = x < y ? (y < z ? y : (x < z ? z : x)) : (x < z ? x : (y < z ? z : y));
  int i = lo - 1, j = hi;
  for (;;) {
    do ++i; while (a[i] < pivot);
    do --j; while (a[j] > pivot);
    if (i >= j) return j + 1;
    int32_t t = a[i];
    a[i] = a[j];
    a[j] = t;
  }
}

static void push(int lo, int hi) {
  Tmk_lock_acquire(0);
  w->stack[w->top++] = (struct task){lo, hi};
  Tmk_lock_release(0);
}

/* Sorts [lo, hi): pushes the larger halves for others, keeps the smaller. */
static void sort_task(int lo, int hi, int threshold) {
  while (hi - lo > threshold) {
    const int m = partition(w->data, lo, hi);
    if (m - lo < hi - m) {
      push(m, hi);
      hi = m;
    } else {
      push(lo, m);
      lo = m;
    }
  }
  bubble(w->data, lo, hi);
  Tmk_lock_acquire(0);
  w->done += hi - lo;
  Tmk_lock_release(0);
}

int main(int argc, char **argv) {
  Tmk_startup(argc, argv);
  const int n = argc > 1 ? atoi(argv[1]) : 65536;
  const int threshold = argc > 2 ? atoi(argv[2]) : 1024;
  if (n < 1 || threshold < 2) {
    if (Tmk_proc_id == 0) fprintf(stderr, "usage: qsort [n >= 1] [threshold >= 2]\n");
    Tmk_exit(2);
  }
  if (Tmk_proc_id == 0) {
    w = Tmk_malloc(sizeof *w);
    w->data = Tmk_malloc(sizeof(int32_t) * (size_t)n);
    w->stack = Tmk_malloc(sizeof(struct task) * (size_t)(n / 2 + 2)); /* every task has >= 2 elements */
    for (int i = 0; i < n; ++i) w->data[i] = value(i);
    w->stack[0] = (struct task){0, n};
    w->top = 1;
    w->done = 0;
    Tmk_distribute(&w, sizeof w);
  }
  Tmk_barrier(0);
  TMK_SCOPE_BEGIN("sort");
  for (;;) {
    Tmk_lock_acquire(0);
    const int finished = w->done == n;
    struct task t = {0, 0};
    if (!finished && w->top > 0) t = w->stack[--w->top];
    Tmk_lock_release(0);
    if (finished) break;
    if (t.hi > t.lo) {
      sort_task(t.lo, t.hi, threshold);
    } else {
      for (int k = 0; k < 2000; ++k) idle_work += (unsigned)k; /* nothing to take: wait a little */
    }
  }
  TMK_SCOPE_END();
  Tmk_barrier(1);
  int status = 0;
  if (Tmk_proc_id == 0) {
    int64_t sum_in = 0, sum_out = 0;
    uint32_t xor_in = 0, xor_out = 0;
    int sorted = 1;
    for (int i = 0; i < n; ++i) {
      sum_in += value(i);
      xor_in ^= (uint32_t)value(i);
      sum_out += w->data[i];
      xor_out ^= (uint32_t)w->data[i];
      if (i > 0 && w->data[i - 1] > w->data[i]) sorted = 0;
    }
    const int ok = sorted && sum_in == sum_out && xor_in == xor_out;
    printf("qsort %d integers, threshold %d on %u node(s): %s\n", n, threshold, Tmk_nprocs,
           ok ? "verified" : sorted ? "WRONG (values lost)" : "WRONG (not sorted)");
    status = ok ? 0 : 1;
  }
  Tmk_exit(status);
}
