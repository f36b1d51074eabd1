/* Racy through the C library: node 0 copies 64 bytes into the shared buffer with memcpy while
 * node 1 fills bytes 32..95 with memset, in the same phase. The calls' ranges overlap in bytes
 * 32..63 and nothing orders them: a write-write race inside libc's code. The length is read from
 * a volatile so that the compiler keeps both as calls. drf_memcpy_disjoint.c is the race-free
 * version (adjacent ranges).
 * @test nodes=2 expect=race pairs=0-1 */
#include <stdio.h>
#include <string.h>
#include <tmk.h>

static char *buf; /* 256 shared bytes */
static volatile size_t len = 64;

int main(int argc, char **argv) {
  Tmk_startup(argc, argv);
  if (Tmk_proc_id == 0) {
    buf = Tmk_malloc(256);
    memset(buf, 0, 256);
    Tmk_distribute(&buf, sizeof buf);
  }
  Tmk_barrier(0);
  char text[256];
  for (int i = 0; i < 256; ++i) text[i] = (char)('a' + i % 26);
  if (Tmk_proc_id == 0)
    memcpy(buf, text, len); /* RACE write */
  else
    memset(buf + 32, '-', len); /* RACE write */
  Tmk_barrier(1);
  printf("node %u: %.96s\n", Tmk_proc_id, buf);
  Tmk_exit(0);
}
