/* Racy, accesses of different sizes that overlap in one byte: node 0 stores a char into byte 2
 * of an int; node 1 loads the whole int. The load's 4 bytes include the stored byte and nothing
 * orders the two accesses, so they race (at byte 2). drf_adjacent_bytes.c is the race-free
 * version: the other node's accesses stop just short of the stored byte.
 * @test nodes=2 expect=race pairs=0-1
 * Prints RACE-ADDRESS: byte 2 of the int, the only byte both touched. */
#include <stdio.h>
#include <tmk.h>

static unsigned *word;
static unsigned seen;

int main(int argc, char **argv) {
  Tmk_startup(argc, argv);
  if (Tmk_proc_id == 0) {
    word = Tmk_malloc(sizeof *word);
    *word = 0x04030201u;
    Tmk_distribute(&word, sizeof word);
    printf("RACE-ADDRESS %p\n", (void *)((unsigned char *)word + 2));
  }
  Tmk_barrier(0);
  if (Tmk_proc_id == 0)
    ((volatile unsigned char *)word)[2] = 0x77; /* RACE write */
  else
    seen = *(volatile unsigned *)word; /* RACE read */
  Tmk_barrier(1);
  printf("node %u: saw %#x, now %#x\n", Tmk_proc_id, seen, *word);
  Tmk_exit(0);
}
