/* The basic operation costs of TreadMarks on real processes: the experiments of
 * run/basic_costs.cpp (USENIX'94's "Basic Operation Costs"), timed by the node that waits for
 * each, after 200 us of quiet (the previous operation's messages are over), ROUNDS times. `ncp2 calibrate`
 * builds it with ncp2-cc and runs it with `ncp2 run --machine real` (docs/validation.md).
 *  - lock-from-manager: lock 1 + k*N (its manager node 1, which holds it) taken by node 0:
 *    2 messages;
 *  - lock-forwarded: the same lock taken next by node 2: the manager forwards to the last holder,
 *    3 messages (none on 2 nodes);
 *  - barrier: 16 barriers of all nodes in a row, the mean, at node 0 (the manager);
 *  - page-miss: node 1 reads a page it never held (from its home, node 0);
 *  - write-fault: node 1's first write to the page in an interval; then after an interval that
 *    left the page unchanged, changed every word, changed every other word (-after-unchanged,
 *    -after-changed, -after-half);
 *  - diff-miss: node 0 reads a page it held before, of which node 1 changed one word: one small
 *    diff from node 1 (2 messages of a few bytes; beside page-miss, it tells message costs from
 *    byte costs); diff-miss-page: the same with every word changed (a diff of a whole page);
 *  - diff-miss-crossed: nodes 0 and 1 at once each read a page the other changed a word of (each
 *    node's server answers while its own program waits), timed at node 0;
 *  - page-miss-burst: node 1 reads 8 pages in a row from node 0, the mean per page;
 *  - lock-local: a Tmk call that needs no message, handed to the node's server and back: node 0
 *    acquires and releases lock 0 (its own, held), the mean of 16 pairs;
 *  - barrier-after-8-pages, barrier-after-520-pages: node 0 changes one word of each of 8 (520)
 *    pages, then times the barrier that closes the interval (node 1 waits there already): a real
 *    node's agent makes each written page's twin and diff at the close (copy_at_close), which the
 *    other operations never time; the difference of the two over 512 pages is that work per page.
 *    As many pages as a program's interval writes (2 MB: out of the caches, as jacobi's and sor's
 *    0.5-1 k pages are; 72 pages cost a third as much per page), one word each so that the diffs
 *    stay small and no garbage collection falls into the timed barrier;
 *  - busy-request-Nms: node 1 computes N ms, then reads a page from node 0 while node 0 computes,
 *    N ms after node 0's server last ran (it managed a barrier): a real node's server shares its
 *    program's core, and the host's scheduler decides when it runs (N = 1, 2, 4, 8, 16);
 *  - lock-burst: a lock-heavy program's rhythm (issue 43): node 0 takes 16 locks of its own
 *    ((k+1)*N, managed by node 0: no other experiment's), so it is their last holder, then
 *    computes; node 1, 2 ms later, acquires and releases each in turn, computing 100 us between
 *    two: each request meets node 0's computing program, 0.1-2 ms after its server last ran. The
 *    mean per acquire (of those node 1 had time for while node 0 still computed: all 16 unless
 *    they average over 2 ms).
 * Loaded (second argument "loaded", issue 43): while nodes 0 and 1 (and 2) time an operation, the
 * other nodes load the host as a program's nodes do, for a window longer than the operation
 * (load_until): pairs of them take a lock from each other in turn (a node left alone takes its
 * own), each acquire handed to the node's agent, its messages and waits keeping agents awake. On
 * 4 nodes on 2 cores a program's every operation took 2.2-2.4x its 2-node time, which an operation
 * timed beside idle nodes never shows (validation/load_factor.hpp). The loaders touch no page or
 * lock of the timed nodes', and arrive at the next barrier after the timed operation is over.
 * Otherwise the other nodes only join the barriers.
 * Node 0 prints one line per timing: "basic-cost NAME MEDIAN_US MIN_US MAX_US P90_US ROUNDS" (the 90th
 * percentile by nearest rank: the smallest time at least 90 % of the rounds do not exceed), and for
 * the busy requests "basic-cost-rounds NAME T1 T2 ..." (every round, sorted).
 * Arguments: rounds (default 9), then "loaded" or nothing. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <tmk.h>

enum {
  LOCK_MANAGER,
  LOCK_FORWARDED,
  BARRIER,
  PAGE_MISS,
  WRITE_FAULT,
  AFTER_UNCHANGED,
  AFTER_CHANGED,
  AFTER_HALF,
  DIFF_MISS,
  DIFF_MISS_PAGE,
  DIFF_MISS_CROSSED,
  PAGE_MISS_BURST,
  LOCK_LOCAL,
  BARRIER_AFTER_FEW,
  BARRIER_AFTER_MANY,
  BUSY_1,
  BUSY_2,
  BUSY_4,
  BUSY_8,
  BUSY_16,
  LOCK_BURST,
  OPS
};
static const char* const names[OPS] = {"lock-from-manager",
                                       "lock-forwarded",
                                       "barrier",
                                       "page-miss",
                                       "write-fault",
                                       "write-fault-after-unchanged",
                                       "write-fault-after-changed",
                                       "write-fault-after-half",
                                       "diff-miss",
                                       "diff-miss-page",
                                       "diff-miss-crossed",
                                       "page-miss-burst",
                                       "lock-local",
                                       "barrier-after-8-pages",
                                       "barrier-after-520-pages",
                                       "busy-request-1ms",
                                       "busy-request-2ms",
                                       "busy-request-4ms",
                                       "busy-request-8ms",
                                       "busy-request-16ms",
                                       "lock-burst"};
enum { kPageWords = 1024, kBarriers = 16, kBurst = 8, kLocalPairs = 16 }; /* 4 KB pages of 32-bit words */
enum { kBusySpacings = 5, kBusyMargin = 8 }; /* ms the computation outlasts the request's start */
enum { kCloseFew = 8, kCloseMany = 520 };    /* pages written before a timed barrier */
/* lock-burst: node 1 starts after kBurstLeadMs of computing and computes kBurstGapUs between two
 * acquires. Node 0 computes through kBurstWindowUs: room for every acquire at up to kBurstPaceUs,
 * and kBurstLastUs for the last one; node 1 starts an acquire only while kBurstLastUs of the
 * window is left (a request's longest wait seen here: two of the host's 4 ms scheduler ticks), so
 * none meets a node that waits (which would serve it at once), however slow the host. */
enum { kBurstLocks = 16, kBurstLeadMs = 2, kBurstGapUs = 100, kBurstPaceUs = 2000, kBurstLastUs = 8000 };
enum { kBurstWindowUs = 1000 * kBurstLeadMs + kBurstLocks * (kBurstGapUs + kBurstPaceUs) + kBurstLastUs };
/* The loaders' window: an operation's settle and itself, with room for two of the host's 4 ms
 * scheduler ticks; beyond a computation the timed nodes make, kLoadAfterUs. */
enum { kLoadUs = 10000, kLoadAfterUs = 2000 };
/* Pages per round: page-miss, diff-miss, diff-miss-page, diff-miss-crossed (2), the burst, one per
 * spacing. */
enum { kPagesPerRound = 5 + kBurst + kBusySpacings };

struct shared {
  double* times;    /* [op * rounds + round], microseconds */
  int32_t* pages;   /* kPagesPerRound pages per round, each experiment its own (page_of) */
  int32_t* written; /* kCloseMany pages node 0 writes before a barrier, every round */
};
static struct shared s;

/* Page `k` of round `r`: no experiment touches another's pages. */
static volatile int32_t* page_of(int r, int k) {
  return s.pages + ((size_t)r * kPagesPerRound + (size_t)k) * kPageWords;
}

static double now_us(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

/* The previous barrier's messages are over. Not longer: after 100 ms every agent sleeps, and each
 * message then pays a wake-up (~50-100 us on a VM) that the machine model has no term for and a
 * running program rarely sees (docs/validation.md). */
static void settle(void) {
  const struct timespec pause = {0, 200 * 1000};
  nanosleep(&pause, 0);
}

static void spin_until(double t) {
  while (now_us() < t) {
  }
}

/* Node `first` and the nodes after it load the host until `until` (see above): node first+2i
 * with node first+2i+1, each taking the pair's lock (its id the higher node's, which manages it)
 * in turn with a microsecond of computation between two; a last node alone takes its own. Lock
 * ids 2..N-1: no experiment's (0, 1 + k*N and (k+1)*N). */
static int loaded; /* the second argument was "loaded" */

static void load_until(double until, int first) {
  const int n = (int)Tmk_nprocs, me = (int)Tmk_proc_id;
  if (!loaded || me < first) return;
  const int partner = first + ((me - first) ^ 1);
  const unsigned lock = (unsigned)(partner < n && partner > me ? partner : me);
  while (now_us() < until) {
    Tmk_lock_acquire(lock);
    Tmk_lock_release(lock);
    spin_until(now_us() + 1);
  }
}
static void load(int first) { load_until(now_us() + kLoadUs, first); }

static int compare(const void* a, const void* b) {
  const double x = *(const double*)a, y = *(const double*)b;
  return x < y ? -1 : x > y;
}

static void locks(int rounds) {
  const int n = (int)Tmk_nprocs, me = (int)Tmk_proc_id;
  for (int r = 0; r < rounds; ++r) {
    const unsigned lock = 1u + (unsigned)(r * n); /* managed by node 1, which holds its token */
    if (me == 0) {
      settle();
      const double t = now_us();
      Tmk_lock_acquire(lock);
      s.times[LOCK_MANAGER * rounds + r] = now_us() - t;
      Tmk_lock_release(lock);
    }
    load(2);
    Tmk_barrier(1);
    if (me == 2) {
      settle();
      const double t = now_us();
      Tmk_lock_acquire(lock);
      s.times[LOCK_FORWARDED * rounds + r] = now_us() - t;
      Tmk_lock_release(lock);
    }
    load(3);
    Tmk_barrier(2);
  }
}

static void barriers(int rounds) {
  for (int r = 0; r < rounds; ++r) {
    if (Tmk_proc_id == 0) settle();
    Tmk_barrier(3);
    const double t = now_us();
    for (int i = 0; i < kBarriers; ++i) Tmk_barrier(3);
    if (Tmk_proc_id == 0) s.times[BARRIER * rounds + r] = (now_us() - t) / kBarriers;
  }
}

/* Node 1's first write of an interval: the same value, so that the write itself changes nothing. */
static void first_write(volatile int32_t* page, int op, int rounds, int r) {
  settle();
  const double t = now_us();
  page[0] = page[0];
  s.times[op * rounds + r] = now_us() - t;
}

static void pages(int rounds) {
  const int writer = Tmk_proc_id == 1;
  for (int r = 0; r < rounds; ++r) {
    volatile int32_t* page = page_of(r, 0);
    Tmk_barrier(4);
    if (writer) {
      settle();
      const double t = now_us();
      (void)page[0];
      s.times[PAGE_MISS * rounds + r] = now_us() - t;
    }
    load(2);
    Tmk_barrier(5);
    if (writer) first_write(page, WRITE_FAULT, rounds, r);
    load(2);
    Tmk_barrier(6);
    if (writer) {
      first_write(page, AFTER_UNCHANGED, rounds, r);
      for (int i = 0; i < kPageWords; ++i) page[i] = i + 1;
    }
    load(2);
    Tmk_barrier(7);
    if (writer) {
      first_write(page, AFTER_CHANGED, rounds, r);
      for (int i = 0; i < kPageWords; i += 2) page[i] = -(i + 1);
    }
    load(2);
    Tmk_barrier(8);
    if (writer) first_write(page, AFTER_HALF, rounds, r);
    load(2);
  }
}

/* Node 0 reads page `k` of each round, which it held before and node 1 changed `changed` words
 * of: one diff from node 1. */
static void diff_miss(int rounds, int op, int k, int changed) {
  for (int r = 0; r < rounds; ++r) {
    volatile int32_t* page = page_of(r, k);
    if (Tmk_proc_id == 0) (void)page[0]; /* a valid copy at node 0 */
    Tmk_barrier(10);
    if (Tmk_proc_id == 1)
      for (int i = 0; i < changed; ++i) page[i] = r + i + 1;
    Tmk_barrier(11);
    if (Tmk_proc_id == 0) {
      settle();
      const double t = now_us();
      (void)page[0];
      s.times[op * rounds + r] = now_us() - t;
    }
    load(2);
  }
}

/* Nodes 0 and 1 each read a page the other changed one word of, at once. */
static void diff_miss_crossed(int rounds) {
  const int me = (int)Tmk_proc_id;
  for (int r = 0; r < rounds; ++r) {
    volatile int32_t* mine = page_of(r, 3 + me); /* node 0 reads page 3, node 1 page 4 */
    volatile int32_t* other = page_of(r, 4 - me);
    if (me <= 1) (void)mine[0];
    Tmk_barrier(12);
    if (me <= 1) other[1] = r + 1;
    Tmk_barrier(13);
    if (me <= 1) {
      const double t = now_us();
      (void)mine[0];
      if (me == 0) s.times[DIFF_MISS_CROSSED * rounds + r] = now_us() - t;
    }
    load(2);
  }
}

static void page_miss_burst(int rounds) {
  for (int r = 0; r < rounds; ++r) {
    Tmk_barrier(14);
    if (Tmk_proc_id == 1) {
      settle();
      const double t = now_us();
      for (int k = 0; k < kBurst; ++k) (void)page_of(r, 5 + k)[0];
      s.times[PAGE_MISS_BURST * rounds + r] = (now_us() - t) / kBurst;
    }
    load(2);
  }
}

static void lock_local(int rounds) {
  for (int r = 0; r < rounds; ++r) {
    Tmk_barrier(15);
    if (Tmk_proc_id == 0) {
      const double t = now_us();
      for (int i = 0; i < kLocalPairs; ++i) {
        Tmk_lock_acquire(0);
        Tmk_lock_release(0);
      }
      s.times[LOCK_LOCAL * rounds + r] = (now_us() - t) / kLocalPairs;
    }
    load(2);
  }
}

/* Node 0 changes one word of each of `count` pages (its own: nobody else reads them), then times
 * the barrier that closes that interval. */
static void barriers_after_writes(int rounds, int op, int count) {
  for (int r = 0; r < rounds; ++r) {
    Tmk_barrier(17);
    if (Tmk_proc_id == 0) {
      for (int k = 0; k < count; ++k) s.written[k * kPageWords + r % kPageWords] = r + count;
      const double t = now_us();
      Tmk_barrier(18);
      s.times[op * rounds + r] = now_us() - t;
    } else {
      Tmk_barrier(18);
    }
  }
}

/* Node 0 manages the barrier (its server runs last then), then computes; node 1 reads a page of
 * node 0's after `ms` milliseconds, while node 0 still computes. */
static void busy_requests(int rounds) {
  static const int spacing_ms[kBusySpacings] = {1, 2, 4, 8, 16};
  for (int k = 0; k < kBusySpacings; ++k)
    for (int r = 0; r < rounds; ++r) {
      Tmk_barrier(16);
      const double start = now_us();
      if (Tmk_proc_id == 0) spin_until(start + 1e3 * (spacing_ms[k] + kBusyMargin));
      if (Tmk_proc_id == 1) {
        /* Computing, as a program's node does before it faults (and as the emulated experiment
         * does): asleep, it would leave its core idle for node 0's woken server, which then runs at
         * once (a fifth of the rounds at 1-4 ms), where computing it waits for node 0's tick (none
         * of 41 rounds at 0.125-1 ms, issue 43's fifth session). */
        spin_until(start + 1e3 * spacing_ms[k]);
        const double t = now_us();
        (void)page_of(r, 5 + kBurst + k)[0];
        s.times[(BUSY_1 + k) * rounds + r] = now_us() - t;
      }
      load_until(start + 1e3 * (spacing_ms[k] + kBusyMargin) + kLoadAfterUs, 2);
    }
}

/* Node 0 takes each lock (from node 1 after the first round) and is its last holder; after a
 * barrier it computes while node 1 acquires and releases them in turn, computing between two. A
 * round whose last acquire ended after node 0's computation (it may have met a waiting node) is
 * said. */
static void lock_burst(int rounds) {
  const unsigned n = Tmk_nprocs;
  int outlasted = 0;
  for (int r = 0; r < rounds; ++r) {
    Tmk_barrier(19);
    if (Tmk_proc_id == 0)
      for (unsigned k = 0; k < kBurstLocks; ++k) {
        Tmk_lock_acquire((k + 1) * n); /* managed by node 0: lock 0 and 1 + r*N are not of this form */
        Tmk_lock_release((k + 1) * n);
      }
    Tmk_barrier(20);
    const double start = now_us();
    if (Tmk_proc_id == 0) spin_until(start + kBurstWindowUs);
    load_until(start + kBurstWindowUs + kLoadAfterUs, 2);
    if (Tmk_proc_id != 1) continue;
    spin_until(start + 1e3 * kBurstLeadMs);
    double acquiring = 0;
    unsigned made = 0;
    for (; made < kBurstLocks && now_us() - start < kBurstWindowUs - kBurstLastUs; ++made) {
      if (made > 0) spin_until(now_us() + kBurstGapUs);
      const double t = now_us();
      Tmk_lock_acquire((made + 1) * n);
      acquiring += now_us() - t;
      Tmk_lock_release((made + 1) * n);
    }
    s.times[LOCK_BURST * rounds + r] = acquiring / made;
    if (now_us() - start > kBurstWindowUs) ++outlasted;
  }
  if (outlasted > 0)
    fprintf(stderr, "basic_costs: lock-burst: %d of %d rounds outlasted node 0's computation\n", outlasted,
            rounds);
}

int main(int argc, char** argv) {
  Tmk_startup(argc, argv);
  const int rounds = argc > 1 ? atoi(argv[1]) : 9;
  loaded = argc > 2 && strcmp(argv[2], "loaded") == 0;
  if (Tmk_nprocs < 2 || rounds < 1) {
    if (Tmk_proc_id == 0) fprintf(stderr, "basic_costs: needs 2 nodes or more and 1 round or more\n");
    Tmk_exit(2);
  }
  if (Tmk_proc_id == 0) {
    s.times = Tmk_malloc((size_t)OPS * (size_t)rounds * sizeof *s.times);
    /* One page of its own per round, aligned: nothing else shares it (node 1 never held it). */
    const size_t page_bytes = kPageWords * sizeof *s.pages;
    char* block = Tmk_malloc((size_t)(kPagesPerRound * rounds + 1) * page_bytes);
    s.pages = block ? (int32_t*)(block + (page_bytes - (uintptr_t)block % page_bytes) % page_bytes) : 0;
    char* written = Tmk_malloc((size_t)(kCloseMany + 1) * page_bytes);
    s.written =
        written ? (int32_t*)(written + (page_bytes - (uintptr_t)written % page_bytes) % page_bytes) : 0;
    if (!s.times || !s.pages || !s.written) {
      fprintf(stderr, "basic_costs: the shared heap is too small for %d rounds\n", rounds);
      Tmk_exit(2);
    }
    for (int i = 0; i < OPS * rounds; ++i) s.times[i] = -1;
    Tmk_distribute(&s, sizeof s);
  }
  Tmk_barrier(0);
  locks(rounds);
  barriers(rounds);
  pages(rounds);
  diff_miss(rounds, DIFF_MISS, 1, 1);
  diff_miss(rounds, DIFF_MISS_PAGE, 2, kPageWords);
  diff_miss_crossed(rounds);
  page_miss_burst(rounds);
  lock_local(rounds);
  barriers_after_writes(rounds, BARRIER_AFTER_FEW, kCloseFew);
  barriers_after_writes(rounds, BARRIER_AFTER_MANY, kCloseMany);
  busy_requests(rounds);
  lock_burst(rounds);
  Tmk_barrier(9);
  if (Tmk_proc_id == 0) {
    double* sorted = malloc((size_t)rounds * sizeof *sorted);
    for (int op = 0; op < OPS; ++op) {
      memcpy(sorted, s.times + op * rounds, (size_t)rounds * sizeof *sorted);
      if (sorted[0] < 0) continue; /* not measured on this many nodes */
      qsort(sorted, (size_t)rounds, sizeof *sorted, compare);
      const int p90 = (9 * rounds + 9) / 10 - 1; /* nearest rank: ceil(0.9 * rounds), from 1 */
      printf("basic-cost %s %.3f %.3f %.3f %.3f %d\n", names[op], sorted[rounds / 2], sorted[0],
             sorted[rounds - 1], sorted[p90], rounds);
      if (op >= BUSY_1 && op <= BUSY_16) { /* each round: the busy requests' two modes are read off them */
        printf("basic-cost-rounds %s", names[op]);
        for (int r = 0; r < rounds; ++r) printf(" %.3f", sorted[r]);
        printf("\n");
      }
    }
    free(sorted);
  }
  Tmk_exit(0);
}
