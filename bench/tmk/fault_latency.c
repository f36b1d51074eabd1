/* Host cost of an access fault of a plain-pointer program under `ncp2 run` (bench/tmk-faults):
 * node 0 writes one byte of each of PAGES pages, barrier; node 1 then reads them (each read: the
 * fault, the page request and reply in the emulator, the protection change, the retry) and writes
 * them (each write: the fault, a twin), timing every access on the host. Prints the medians. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <tmk.h>
static char *data;
static int cmp(const void *a, const void *b) { long x = *(const long *)a, y = *(const long *)b; return (x > y) - (x < y); }
static long now_ns(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec * 1000000000L + t.tv_nsec; }
int main(int argc, char **argv) {
  Tmk_startup(argc, argv);
  int pages = argc > 1 ? atoi(argv[1]) : 2000;
  if (Tmk_proc_id == 0) { data = Tmk_malloc((size_t)pages * 4096); Tmk_distribute(&data, sizeof data); }
  Tmk_barrier(0);
  if (Tmk_proc_id == 0) for (int p = 0; p < pages; ++p) data[(size_t)p * 4096] = (char)p;
  Tmk_barrier(1);
  if (Tmk_proc_id == 1) {
    long *lat = malloc(sizeof(long) * (size_t)pages);
    volatile char sink = 0;
    for (int p = 0; p < pages; ++p) { long t0 = now_ns(); sink += data[(size_t)p * 4096]; lat[p] = now_ns() - t0; }
    long *w = malloc(sizeof(long) * (size_t)pages);
    for (int p = 0; p < pages; ++p) { long t0 = now_ns(); data[(size_t)p * 4096 + 8] = 1; w[p] = now_ns() - t0; }
    qsort(lat, (size_t)pages, sizeof *lat, cmp); qsort(w, (size_t)pages, sizeof *w, cmp);
    printf("read_fault_median_ns %ld p10 %ld p90 %ld write_fault_median_ns %ld\n", lat[pages / 2], lat[pages / 10], lat[pages * 9 / 10], w[pages / 2]);
  }
  Tmk_barrier(2);
  Tmk_exit(0);
}
