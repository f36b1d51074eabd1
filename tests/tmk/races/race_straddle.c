/* Racy in the second half of an access that straddles a page boundary: node 0 stores 8 bytes
 * with one unaligned store at 4 bytes before a page boundary; node 1 reads the 4 bytes just before
 * that store (first page: no overlap) and the 4 bytes starting at the boundary (second page: they
 * overlap the store's second half). Only the second read races; the detector must split the store
 * at the boundary and report the byte at the boundary.
 * @test nodes=2 expect=race pairs=0-1
 * Prints RACE-ADDRESS: the page boundary. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <tmk.h>

static unsigned char *buf; /* 3 pages */
static int low, high;

int main(int argc, char **argv) {
  Tmk_startup(argc, argv);
  if (Tmk_proc_id == 0) {
    buf = Tmk_malloc(3 * 4096);
    memset(buf, 0, 3 * 4096);
    Tmk_distribute(&buf, sizeof buf);
  }
  Tmk_barrier(0);
  unsigned char *boundary = buf + 4096 - (uintptr_t)buf % 4096;
  if (Tmk_proc_id == 0) {
    printf("RACE-ADDRESS %p\n", (void *)boundary);
    const uint64_t v = 0x1122334455667788u;
    memcpy(boundary - 4, &v, sizeof v); /* RACE write */
  } else {
    memcpy(&low, boundary - 8, sizeof low);  /* adjacent on the first page: no race */
    memcpy(&high, boundary, sizeof high); /* RACE read */
  }
  Tmk_barrier(1);
  printf("node %u: read %#x %#x\n", Tmk_proc_id, (unsigned)low, (unsigned)high);
  Tmk_exit(0);
}
