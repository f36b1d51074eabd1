/* A request to a node idle for a second against one to a recently busy node (issue 42: what a page
 * miss costs must not depend on how long the home node has been idle). Node 0, every page's home,
 * computes all along without a request of its own; node 1 reads pages it never held (a page miss
 * each, served by node 0's agent): IDLE times after node 0 has served nothing for a second,
 * BUSY times 200 us after node 0 served the previous one. Node 1 prints
 *   "idle-request IDLE_MEDIAN_US BUSY_MEDIAN_US"
 * (bench/real-machine-idle-request runs it; issue 42 asks IDLE_MEDIAN within 1.5 x BUSY_MEDIAN). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <tmk.h>

enum { kIdle = 3, kBusyPerIdle = 5, kPages = kIdle * (1 + kBusyPerIdle), kPageBytes = 4096 };

static char* pages;

static double now_us(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

/* Computing meanwhile, as node 0 does: this node's core stays awake (a virtual CPU idle for a second
 * takes long to wake; that is the requester's idleness, not the home's). */
static void pause_us(long us) {
  volatile double x = 0;
  const double end = now_us() + (double)us;
  while (now_us() < end)
    for (int i = 0; i < 100; ++i) x += i * 0.5;
}

static double miss(int page) {
  const double t = now_us();
  (void)*(volatile char*)(pages + (size_t)page * kPageBytes);
  return now_us() - t;
}

static int compare(const void* a, const void* b) {
  const double x = *(const double*)a, y = *(const double*)b;
  return x < y ? -1 : x > y;
}

static double median(double* v, int n) {
  qsort(v, (size_t)n, sizeof *v, compare);
  return v[n / 2];
}

int main(int argc, char** argv) {
  Tmk_startup(argc, argv);
  const long idle_us = argc > 1 ? atol(argv[1]) : 1000000; /* a second, unless told */
  if (Tmk_nprocs != 2) {
    if (Tmk_proc_id == 0) fprintf(stderr, "idle_request: runs on 2 nodes\n");
    Tmk_exit(2);
  }
  if (Tmk_proc_id == 0) {
    char* block = Tmk_malloc((size_t)(kPages + 1) * kPageBytes);
    if (!block) Tmk_exit(2);
    pages = block + (kPageBytes - (uintptr_t)block % kPageBytes) % kPageBytes;
    Tmk_distribute(&pages, sizeof pages);
  }
  Tmk_barrier(0);
  if (Tmk_proc_id == 0) {
    /* Computing, no request, until node 1 is done (its last page plus a margin). */
    volatile double x = 0;
    const double end = now_us() + kIdle * ((double)idle_us + kBusyPerIdle * 1e3) + 0.3e6;
    while (now_us() < end)
      for (int i = 0; i < 1000; ++i) x += i * 0.5;
  } else {
    double idle[kIdle], busy[kIdle * kBusyPerIdle];
    int page = 0;
    for (int r = 0; r < kIdle; ++r) {
      pause_us(idle_us);
      idle[r] = miss(page++);
      for (int k = 0; k < kBusyPerIdle; ++k) {
        pause_us(200);
        busy[r * kBusyPerIdle + k] = miss(page++);
      }
    }
    printf("idle-request %.1f %.1f\n", median(idle, kIdle), median(busy, kIdle * kBusyPerIdle));
  }
  Tmk_barrier(1);
  Tmk_exit(0);
}
