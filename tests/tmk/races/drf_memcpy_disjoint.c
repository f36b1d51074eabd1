/* Race-free through the C library: in the same phase node 0 copies 64 bytes into bytes 0..63 of
 * the shared buffer with memcpy, node 1 fills bytes 64..127 with memset (adjacent, not
 * overlapping) and copies bytes 128..191, which node 0 wrote before barrier 0, out of shared
 * memory with memcpy (a read ordered after that write by the barrier). No byte is touched by both
 * nodes in the phase. The counterpart of race_memcpy.c.
 * @test nodes=2 expect=race-free */
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
    memset(buf + 128, '#', 64);
    Tmk_distribute(&buf, sizeof buf);
  }
  Tmk_barrier(0);
  char text[256], copy[256];
  for (int i = 0; i < 256; ++i) text[i] = (char)('a' + i % 26);
  memset(copy, 0, sizeof copy);
  if (Tmk_proc_id == 0) {
    memcpy(buf, text, len);
  } else {
    memset(buf + len, '-', len);
    memcpy(copy, buf + 2 * len, len);
  }
  Tmk_barrier(1);
  int ok = memcmp(buf, text, 64) == 0;
  for (int i = 64; i < 128; ++i) ok = ok && buf[i] == '-';
  for (int i = 0; i < 64 && Tmk_proc_id == 1; ++i) ok = ok && copy[i] == '#';
  printf("node %u: %s\n", Tmk_proc_id, ok ? "both ranges right" : "WRONG");
  Tmk_exit(ok ? 0 : 1);
}
