/* A barrier-only program of shared records linked by pointers into shared memory (tests/protocol):
 * each phase, node p rewrites the records i with i % nprocs == p (their tag byte, counter, value
 * and the pointer to the next record: many writers share every page, and the same words), and
 * marks its bytes of a flag array (nodes write different bytes of the same words); after the
 * barrier every node follows the chain of pointers from record 0 and checks what it reads against
 * the sequential semantics. Its synchronization order is fixed, so an emulated and a real run take
 * the same protocol decisions. Arguments: records phases. Exit 0 when every check passed. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <tmk.h>

struct record {
  uint8_t tag;
  uint16_t counter;
  double value;
  struct record *next; /* into shared memory: the same address on every node */
};

struct shared {
  struct record *records;
  uint8_t *flags;
};
static struct shared s;

static int next_of(int i, int phase, int n) { return (i * 5 + phase * 3 + 1) % n; }
static double value_of(int i, int phase) { return i * 0.5 + phase * 1000.0; }

int main(int argc, char **argv) {
  Tmk_startup(argc, argv);
  const int n = argc > 1 ? atoi(argv[1]) : 2000;
  const int phases = argc > 2 ? atoi(argv[2]) : 4;
  if (Tmk_proc_id == 0) {
    s.records = Tmk_malloc((size_t)n * sizeof *s.records);
    s.flags = Tmk_malloc((size_t)n);
    for (int i = 0; i < n; ++i) {
      s.records[i] = (struct record){0, 0, 0.0, &s.records[(i + 1) % n]};
      s.flags[i] = 0;
    }
    Tmk_distribute(&s, sizeof s);
  }
  Tmk_barrier(0);
  long bad = 0;
  for (int phase = 1; phase <= phases; ++phase) {
    for (int i = (int)Tmk_proc_id; i < n; i += (int)Tmk_nprocs) {
      struct record *r = &s.records[i];
      r->tag = (uint8_t)(phase + i);
      r->counter = (uint16_t)(r->counter + phase);
      r->value = value_of(i, phase);
      r->next = &s.records[next_of(i, phase, n)];
      s.flags[i] = (uint8_t)(phase * 7 + (int)Tmk_proc_id);
    }
    Tmk_barrier(1);
    /* Follow the chain: every hop reads a record another node may have written. */
    const struct record *r = &s.records[0];
    for (int hop = 0; hop < n; ++hop) {
      const int i = (int)(r - s.records);
      if (i < 0 || i >= n) {
        ++bad;
        break;
      }
      const unsigned writer = (unsigned)i % Tmk_nprocs;
      if (r->tag != (uint8_t)(phase + i) || r->counter != (uint16_t)(phase * (phase + 1) / 2) ||
          r->value != value_of(i, phase) || s.flags[i] != (uint8_t)(phase * 7 + (int)writer))
        ++bad;
      r = r->next;
    }
    Tmk_barrier(2);
  }
  if (bad) printf("node %u: %ld wrong values\n", Tmk_proc_id, bad);
  else if (Tmk_proc_id == 0) printf("linked records: %d records, %d phases, verified\n", n, phases);
  Tmk_exit(bad ? 1 : 0);
}
