/* A pipeline of polling consumers (issue 41 item 4): node 0 produces ITEMS numbers into ring 0;
 * node i takes each from ring i-1, adds i and puts it into ring i; the last node sums them. Each
 * ring is a small buffer with its own lock. A node polls: it takes the lock, looks at the count,
 * and releases it; a poll that finds nothing to do increments the ring's statistic under the
 * lock. Between polls a node does private busy work. A lock that another node asked for must go
 * to it at the next release: a poller that could take its lock back at once would starve its
 * neighbour, and the pipeline would crawl.
 *
 * Arguments: items capacity work (default 400 4 200). */
#include <stdio.h>
#include <stdlib.h>
#include <tmk.h>

enum { kMaxCapacity = 64 };
struct ring {
  int head, tail, count;
  int failed_polls; /* statistic: polls that found the ring full (producer) or empty (consumer) */
  int items[kMaxCapacity];
};
static struct ring *rings;
static volatile double sink;

static void busy(int work) {
  double x = 1.0;
  for (int k = 0; k < work; ++k) x = x * 1.0000001 + 0.5;
  sink = x;
}

/* One poll of ring r: puts `value` if there is room (returns 1), else counts a failed poll. */
static int try_put(int r, int capacity, int value) {
  int done = 0;
  Tmk_lock_acquire((unsigned)r);
  struct ring *g = &rings[r];
  if (g->count < capacity) {
    g->items[g->tail] = value;
    g->tail = (g->tail + 1) % capacity;
    ++g->count;
    done = 1;
  } else {
    ++g->failed_polls;
  }
  Tmk_lock_release((unsigned)r);
  return done;
}

/* One poll of ring r: takes an item into *value (returns 1), else counts a failed poll. */
static int try_take(int r, int capacity, int *value) {
  int done = 0;
  Tmk_lock_acquire((unsigned)r);
  struct ring *g = &rings[r];
  if (g->count > 0) {
    *value = g->items[g->head];
    g->head = (g->head + 1) % capacity;
    --g->count;
    done = 1;
  } else {
    ++g->failed_polls;
  }
  Tmk_lock_release((unsigned)r);
  return done;
}

int main(int argc, char **argv) {
  Tmk_startup(argc, argv);
  const int items = argc > 1 ? atoi(argv[1]) : 400;
  int capacity = argc > 2 ? atoi(argv[2]) : 4;
  const int work = argc > 3 ? atoi(argv[3]) : 200;
  if (capacity < 1 || capacity > kMaxCapacity) capacity = 4;
  const int me = (int)Tmk_proc_id, n = (int)Tmk_nprocs;
  if (me == 0) {
    rings = (struct ring *)Tmk_malloc(sizeof(struct ring) * (size_t)(n > 1 ? n - 1 : 1));
    Tmk_distribute(&rings, sizeof rings);
  }
  Tmk_barrier(0);
  long long sum = 0;
  for (int i = 0; i < items; ++i) {
    int value = i;
    if (me > 0)
      while (!try_take(me - 1, capacity, &value)) busy(work);
    value += me;
    if (me < n - 1)
      while (!try_put(me, capacity, value)) busy(work);
    else
      sum += value;
    busy(work);
  }
  Tmk_barrier(1);
  if (me == n - 1) {
    /* Item i arrives as i + 0 + 1 + ... + (n-1). */
    const long long expected = (long long)items * (items - 1) / 2 + (long long)items * n * (n - 1) / 2;
    printf("polling ring: %d nodes, sum %lld, expected %lld: %s\n", n, sum, expected,
           sum == expected ? "verified" : "WRONG");
    if (sum != expected) return 1;
  }
  Tmk_exit(0);
  return 0;
}
