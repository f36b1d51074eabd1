/* What the host itself charges, without the emulator (bench/tmk-faults): an access fault caught
 * and repaired in the same process (SIGSEGV, mprotect read-write, return, retry) and mprotect
 * alone, on a shared mapping like a node's shared memory; and the two ways SMPI-like emulators
 * switch a 64 KiB data segment between nodes (remap, or copy out and in). */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

static long now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1000000000L + t.tv_nsec;
}
static int by_value(const void *a, const void *b) {
  long x = *(const long *)a, y = *(const long *)b;
  return (x > y) - (x < y);
}
static void repair(int s, siginfo_t *info, void *c) {
  (void)s;
  (void)c;
  mprotect((void *)((unsigned long)info->si_addr & ~4095UL), 4096, PROT_READ | PROT_WRITE);
}

int main(void) {
  const int n = 4000;
  char *base = mmap(0, (size_t)n * 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  for (int p = 0; p < n; ++p) base[(size_t)p * 4096] = 1;
  long t0 = now_ns();
  for (int p = 0; p < n; ++p) mprotect(base + (size_t)p * 4096, 4096, PROT_READ);
  const long mprotect_ns = (now_ns() - t0) / n;
  struct sigaction sa = {0};
  sa.sa_sigaction = repair;
  sa.sa_flags = SA_SIGINFO;
  sigaction(SIGSEGV, &sa, 0);
  long *lat = malloc(sizeof(long) * (size_t)n);
  for (int p = 0; p < n; ++p) {
    t0 = now_ns();
    base[(size_t)p * 4096 + 8] = 2;
    lat[p] = now_ns() - t0;
  }
  qsort(lat, (size_t)n, sizeof *lat, by_value);

  const size_t bytes = 64 * 1024;
  int fds[2];
  for (int i = 0; i < 2; ++i) {
    fds[i] = memfd_create("segment", 0);
    if (ftruncate(fds[i], (off_t)bytes) != 0) return 1;
  }
  char *segment = mmap(0, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fds[0], 0);
  const int switches = 10000;
  t0 = now_ns();
  for (int i = 0; i < switches; ++i) {
    mmap(segment, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fds[i & 1], 0);
    segment[100] += 1;
  }
  const long remap_ns = (now_ns() - t0) / switches;
  static char saved[2][64 * 1024];
  t0 = now_ns();
  for (int i = 0; i < switches; ++i) {
    __builtin_memcpy(saved[i & 1], segment, bytes);
    __builtin_memcpy(segment, saved[(i + 1) & 1], bytes);
  }
  const long copy_ns = (now_ns() - t0) / switches;
  printf("fault_repair_median_ns %ld mprotect_ns %ld remap_64k_ns %ld copy_64k_ns %ld\n", lat[n / 2], mprotect_ns,
         remap_ns, copy_ns);
  return 0;
}
