/* Data races for the race checks (ncp2-cc --ncp2-races, ncp2 run --detect-races): argument 1 picks
 * one race, marked RACE below, between nodes 0 and 1 (ww: between every two nodes); the rest of
 * the program is race-free (bytes of one word written by different nodes, a counter under a lock,
 * reads after a barrier) and must report nothing. "none" runs the race-free part alone. Exit 0
 * (except "crash" and "die", where node 1 crashes or _exits after its racing write). */
#include <stdio.h>
#include <string.h>
#include <tmk.h>
#include <unistd.h>

struct shared {
  int cells[4];
  char bytes[16];  /* byte i written by node i only */
  long counter;    /* under lock 0 */
  char block[3 * 4096];
};
static struct shared *s;
static char copy[8192];

int main(int argc, char **argv) {
  Tmk_startup(argc, argv);
  const char *mode = argc > 1 ? argv[1] : "ww";
  const unsigned me = Tmk_proc_id;
  if (me == 0) {
    s = (struct shared *)Tmk_malloc(sizeof *s);
    Tmk_distribute(&s, sizeof s);
  }
  Tmk_barrier(0);
  s->bytes[me % 16] = (char)me;
  Tmk_lock_acquire(0);
  s->counter += 1;
  Tmk_lock_release(0);
  if (strcmp(mode, "ww") == 0) s->cells[1] = (int)me + 1; /* RACE ww */
  if (me < 2) {
    if (strcmp(mode, "rw") == 0) {
      if (me == 0) s->cells[2] = 5; /* RACE rw-write */
      else printf("read %d\n", s->cells[2]); /* RACE rw-read */
    }
    if (strcmp(mode, "memcpy") == 0) {
      if (me == 0) s->block[4096 + 10] = 1; /* RACE memcpy-write */
      else memcpy(copy, s->block + 100, sizeof copy); /* RACE memcpy-read */
    }
    if (strcmp(mode, "atomic") == 0) __atomic_fetch_add(&s->cells[3], 1, __ATOMIC_RELAXED); /* RACE atomic */
    if (strcmp(mode, "crash") == 0) { /* the race is found although the run fails */
      s->cells[0] = 1; /* RACE crash */
      if (me == 1) *(volatile int *)argv[argc] = 0;
    }
    if (strcmp(mode, "die") == 0) { /* node 1 ends without a word to the emulator */
      s->cells[0] = 2; /* RACE die */
      if (me == 1) _exit(3);
    }
  }
  Tmk_barrier(1);
  if (me == 0) printf("counter %ld byte %d copy %d\n", s->counter, s->bytes[1], copy[4000]);
  Tmk_exit(0);
}
