/* Race-free, adjacent bytes of one word: node 0 stores a char into byte 2 of an int; node 1 loads
 * bytes 0..1 (a short) and stores byte 3, in the same phase. The accesses touch the same word and
 * page but no common byte, so nothing races (a race needs overlapping bytes); the byte-exact
 * diffs keep both stores. The counterpart of race_byte_overlap.c.
 * @test nodes=2 expect=race-free */
#include <stdio.h>
#include <tmk.h>

static unsigned *word;
static unsigned short low;

int main(int argc, char **argv) {
  Tmk_startup(argc, argv);
  if (Tmk_proc_id == 0) {
    word = Tmk_malloc(sizeof *word);
    *word = 0x04030201u;
    Tmk_distribute(&word, sizeof word);
  }
  Tmk_barrier(0);
  if (Tmk_proc_id == 0) {
    ((volatile unsigned char *)word)[2] = 0x77;
  } else {
    low = *(volatile unsigned short *)word;
    ((volatile unsigned char *)word)[3] = 0x99;
  }
  Tmk_barrier(1);
  const int ok = *word == 0x99770201u && (Tmk_proc_id == 0 || low == 0x0201);
  printf("node %u: word %#x, low %#x %s\n", Tmk_proc_id, *word, low, ok ? "right" : "WRONG");
  Tmk_exit(ok ? 0 : 1);
}
