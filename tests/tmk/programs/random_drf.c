/* A random data-race-free program through the Tmk API: mixed-width shared data (bytes, halfwords,
 * structs with pointers into shared memory), written each phase by owners drawn from the seed
 * (so different nodes write different bytes of the same word), read by every node after the
 * barrier and checked against the sequential semantics: each element holds the value of the
 * last phase that wrote it. Lock-protected counters check lock-carried coherence.
 * Arguments: seed elements phases [locks]; locks 0: the barrier-only form (no lock-protected
 * counters), whose synchronization order is fixed. Exit 0 when every check passed. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <tmk.h>

struct record {
  uint8_t tag;
  int32_t value;
  struct record *next; /* a pointer into shared memory, valid on every node */
};

struct shared {
  uint8_t *bytes;
  uint16_t *halves;
  struct record *records;
  int64_t *counters;
};
static struct shared s;

static uint64_t mix(uint64_t x) {
  x += 0x9E3779B97F4A7C15ULL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}
static uint64_t draw(uint64_t seed, uint64_t phase, uint64_t element, uint64_t kind) {
  return mix(seed * 1000003u + phase * 7919u + element * 31u + kind);
}
/* The node that writes `element` of `kind` in `phase`, or nprocs: nobody. */
static unsigned owner(uint64_t seed, int phase, int element, int kind) {
  return (unsigned)(draw(seed, (uint64_t)phase, (uint64_t)element, (uint64_t)kind) % (Tmk_nprocs + 1));
}
static uint8_t byte_value(int phase, int e) { return (uint8_t)(phase * 37 + e * 11 + 1); }
static uint16_t half_value(int phase, int e) { return (uint16_t)(phase * 4099 + e * 3 + 7); }

int main(int argc, char **argv) {
  Tmk_startup(argc, argv);
  const uint64_t seed = argc > 1 ? strtoull(argv[1], 0, 10) : 1;
  const int n = argc > 2 ? atoi(argv[2]) : 3000;
  const int phases = argc > 3 ? atoi(argv[3]) : 5;
  const int locks = argc > 4 ? atoi(argv[4]) : 1;
  if (Tmk_proc_id == 0) {
    s.bytes = Tmk_malloc((size_t)n);
    s.halves = Tmk_malloc((size_t)n * sizeof *s.halves);
    s.records = Tmk_malloc((size_t)n * sizeof *s.records);
    s.counters = Tmk_malloc(8 * sizeof *s.counters);
    for (int e = 0; e < n; ++e) {
      s.bytes[e] = 0;
      s.halves[e] = 0;
      s.records[e].tag = 0;
      s.records[e].value = -1;
      s.records[e].next = &s.records[e];
    }
    for (int c = 0; c < 8; ++c) s.counters[c] = 0;
    Tmk_distribute(&s, sizeof s);
  }
  Tmk_barrier(0);
  int *last_byte = calloc((size_t)n, sizeof(int)); /* private: the sequential semantics */
  int *last_half = calloc((size_t)n, sizeof(int));
  int *last_record = calloc((size_t)n, sizeof(int));
  long bad = 0;
  int64_t expected[8] = {0};
  for (int phase = 1; phase <= phases; ++phase) {
    for (int e = 0; e < n; ++e) {
      unsigned w = owner(seed, phase, e, 0);
      if (w == Tmk_proc_id) s.bytes[e] = byte_value(phase, e);
      if (w < Tmk_nprocs) last_byte[e] = phase;
      w = owner(seed, phase, e, 1);
      if (w == Tmk_proc_id) s.halves[e] = half_value(phase, e);
      if (w < Tmk_nprocs) last_half[e] = phase;
      w = owner(seed, phase, e, 2);
      if (w == Tmk_proc_id) {
        struct record r = {(uint8_t)phase, phase * 100000 + e, &s.records[(e * 7 + phase) % n]};
        s.records[e] = r; /* a struct copy: several widths at once */
      }
      if (w < Tmk_nprocs) last_record[e] = phase;
    }
    for (int k = 0; locks && k < 3; ++k) { /* lock-carried updates */
      const int c = (int)((Tmk_proc_id + (unsigned)k + (unsigned)phase) % 8);
      Tmk_lock_acquire((unsigned)c);
      s.counters[c] += (int64_t)(Tmk_proc_id + 1) * phase;
      Tmk_lock_release((unsigned)c);
    }
    for (unsigned p = 0; locks && p < Tmk_nprocs; ++p)
      for (int k = 0; k < 3; ++k) expected[(p + (unsigned)k + (unsigned)phase) % 8] += (int64_t)(p + 1) * phase;
    Tmk_barrier(1);
    for (int e = 0; e < n; ++e) {
      const int lb = last_byte[e], lh = last_half[e], lr = last_record[e];
      if (s.bytes[e] != (lb ? byte_value(lb, e) : 0)) ++bad;
      if (s.halves[e] != (lh ? half_value(lh, e) : 0)) ++bad;
      const struct record *r = &s.records[e];
      if (lr == 0) {
        if (r->tag != 0 || r->value != -1 || r->next != r) ++bad;
      } else if (r->tag != (uint8_t)lr || r->value != lr * 100000 + e || r->next != &s.records[(e * 7 + lr) % n]) {
        ++bad;
      }
    }
    Tmk_barrier(2);
  }
  for (int c = 0; c < 8; ++c)
    if (s.counters[c] != expected[c]) ++bad;
  if (bad) printf("node %u: %ld wrong values (seed %llu)\n", Tmk_proc_id, bad, (unsigned long long)seed);
  else if (Tmk_proc_id == 0) printf("random program %llu: %d elements, %d phases, verified\n", (unsigned long long)seed, n, phases);
  Tmk_exit(bad ? 1 : 0);
}
