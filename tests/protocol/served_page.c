/* A page served while its writer's interval is open (docs/protocol.md, "What a served page
 * holds"). In each round node 0 writes one word of a fresh page twice in one interval: first a
 * value the word only passes through (its low byte differs from the page's before, the final
 * value's low byte equals it), then the final value. Node 1, which has never held that page, reads
 * another word of it in between; after a barrier it must see the final value. A served copy that
 * held the passing value would keep its low byte: the interval's diff carries only the bytes that
 * differ from the twin.
 * Between its two writes node 0 either waits for a diff (it reads a page node 1 wrote: "fault", the
 * repro of the bug) or only computes ("spin": its first write, a write fault taken at once, may not
 * be reported yet when the page is served). Pairs by round: 255 then 256, 255 then 0 (restored),
 * a halfword 0x00ff then 0x0100, a byte 0x5a then 0 beside bytes nobody writes. Node 1 reads after
 * a spin that grows with the round, so that some read falls in node 0's window on any machine.
 * usage: served_page ROUNDS STEP SPIN   (node 1's spin in round r: r * STEP iterations; node 0's
 * between its writes: SPIN; 2 nodes or more)
 * Prints "served_page: R rounds, W wrong: verified" (or WRONG, exit 1). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <tmk.h>

enum { kPage = 4096 };

static unsigned char *heap; /* page-aligned: pages A_r = 2r, B_r = 2r + 1 */
static volatile uint32_t *wrong;
static volatile unsigned sink;

static void spin(long n) {
  for (long k = 0; k < n; ++k) sink += (unsigned)k;
}

/* The pairs, by round (r / 2 % 4): the width written, the value passed through, the final value. */
struct pair {
  int width;
  uint32_t first, last;
};
static const struct pair kPairs[4] = {{4, 255, 256}, {4, 255, 0}, {2, 0x00ff, 0x0100}, {1, 0x5a, 0}};

static void store(unsigned char *a, int width, uint32_t value) {
  if (width == 4)
    *(volatile uint32_t *)a = value;
  else if (width == 2)
    *(volatile uint16_t *)a = (uint16_t)value;
  else
    ((volatile unsigned char *)a)[1] = (unsigned char)value; /* byte 1, beside bytes nobody writes */
}

/* Node 0's two writes into page A; between them a diff fetch (even rounds) or a spin. */
static void write_twice(unsigned char *a, const volatile uint32_t *b, int r, long writer_spin) {
  const struct pair p = kPairs[r / 2 % 4];
  store(a, p.width, p.first);
  if (r % 2 == 0)
    sink += *b; /* node 0's copy of page B is stale: it waits for node 1's diff */
  else
    spin(writer_spin);
  store(a, p.width, p.last);
}

/* Node 1's check of page A after the barrier: the first word as node 0 left it. */
static int as_left(const unsigned char *a, int r) {
  const struct pair p = kPairs[r / 2 % 4];
  return *(const volatile uint32_t *)a == (p.width == 1 ? p.last << 8 : p.last);
}

int main(int argc, char **argv) {
  Tmk_startup(argc, argv);
  const int rounds = argc > 1 ? atoi(argv[1]) : 0;
  const long step = argc > 2 ? atol(argv[2]) : -1;
  const long writer_spin = argc > 3 ? atol(argv[3]) : -1;
  if (rounds <= 0 || rounds > 4096 || step < 0 || writer_spin < 0 || Tmk_nprocs < 2) {
    if (Tmk_proc_id == 0)
      fprintf(stderr, "usage: served_page ROUNDS STEP SPIN (ROUNDS 1..4096, STEP and SPIN >= 0; "
                      "2 nodes or more)\n");
    Tmk_exit(2);
  }
  if (Tmk_proc_id == 0) {
    unsigned char *block = Tmk_malloc((size_t)(2 * rounds + 1) * kPage + sizeof(uint32_t));
    heap = (unsigned char *)(((uintptr_t)block + kPage - 1) / kPage * kPage);
    wrong = (volatile uint32_t *)(block + (size_t)(2 * rounds + 1) * kPage);
    Tmk_distribute(&heap, sizeof heap);
    Tmk_distribute(&wrong, sizeof wrong);
  }
  Tmk_barrier(0);
  for (int r = 0; r < rounds; ++r) {
    unsigned char *a = heap + (size_t)(2 * r) * kPage;
    volatile uint32_t *b = (volatile uint32_t *)(a + kPage);
    if (Tmk_proc_id == 1) b[0] = 1; /* node 0's copy of page B becomes stale at the barrier */
    Tmk_barrier(1);
    if (Tmk_proc_id == 0) {
      write_twice(a, b, r, writer_spin);
    } else if (Tmk_proc_id == 1) {
      spin(r * step);
      sink += ((const volatile uint32_t *)a)[kPage / 8]; /* its first access to page A */
    }
    Tmk_barrier(2);
    if (Tmk_proc_id == 1 && !as_left(a, r)) {
      printf("round %d: node 1 sees %#x\n", r, (unsigned)*(const volatile uint32_t *)a);
      *wrong += 1;
    }
  }
  Tmk_barrier(3);
  const uint32_t failures = *wrong;
  if (Tmk_proc_id == 0)
    printf("served_page: %d rounds, %u wrong: %s\n", rounds, (unsigned)failures,
           failures == 0 ? "verified" : "WRONG");
  Tmk_exit(failures != 0);
}
