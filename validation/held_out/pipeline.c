/* A pipeline: blocks of items flow through S stages owned by the nodes in turn (stage s by node
 * s % N), handed from stage to stage through shared buffers.
 *
 * Stage 0 makes the items (a hash of their index); every stage applies its own transform to each
 * item (`work` rounds of a hash mixing in the stage's number); the last stage writes the blocks
 * into a shared output array. Between stage s and s + 1 lies a channel of `slots` block buffers
 * in shared memory, each with a flag (empty, or the number of the block it holds) protected by a
 * lock of its own: block b goes through slot b % slots. The producer takes the slot's lock and,
 * when the slot is empty, fills it and sets the flag; the consumer takes it and, when it holds
 * block b, copies it out and empties it; either one, finding the slot not ready, releases the lock,
 * waits a little and tries again. So every hand-off is a lock transfer and a diff of the block.
 *
 * A node owning several stages interleaves them: it does stage s of block b at step b + s, in the
 * order of the steps (and of the stages within a step). Every hand-off a step waits for belongs
 * to an earlier step when there are at least 2 slots, so no node waits for one that waits for it.
 * After a barrier node 0 checks the output against the transforms applied sequentially.
 *
 * Arguments: blocks items stages slots work check (default 384 1024 8 4 24 1; slots >= 2; check 0
 * skips node 0's check). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tmk.h>

#define EMPTY (-1)

struct slot {
  int32_t block; /* EMPTY, or the block it holds; under the slot's lock */
};
struct pipeline {
  int stages, slots, items;
  struct slot *flags;  /* (stages - 1) x slots */
  uint32_t *buffers;   /* (stages - 1) x slots x items */
  uint32_t *output;    /* blocks x items, written by the last stage */
};
static struct pipeline *pl;        /* shared; node 0 allocates, Tmk_distribute gives the pointer */
static volatile unsigned idle_work; /* the private computation between polls of a slot not ready */

static uint32_t input_of(uint32_t i) {
  uint32_t h = i * 0x9e3779b1u + 0x7f4a7c15u;
  h ^= h >> 16;
  h *= 0x85ebca6bu;
  h ^= h >> 13;
  return h;
}

static uint32_t transform(uint32_t x, int stage, int work) {
  for (int r = 0; r < work; ++r) {
    x += (uint32_t)stage * 0x632be5abu + (uint32_t)r;
    x ^= x >> 15;
    x *= 0x2c1b3c6du;
    x ^= x >> 12;
  }
  return x;
}

static unsigned lock_of(int channel, int slot) { return (unsigned)(channel * pl->slots + slot); }

static uint32_t *buffer_of(int channel, int slot) {
  return &pl->buffers[((size_t)channel * (size_t)pl->slots + (size_t)slot) * (size_t)pl->items];
}

/* Waits until channel's slot for `block` is in state `want` (EMPTY to put, the block to take),
 * and returns with its lock held. */
static struct slot *hold_slot(int channel, int block, int32_t want) {
  const int slot = block % pl->slots;
  struct slot *f = &pl->flags[channel * pl->slots + slot];
  for (;;) {
    Tmk_lock_acquire(lock_of(channel, slot));
    if (f->block == want) return f;
    Tmk_lock_release(lock_of(channel, slot));
    for (int k = 0; k < 2000; ++k) idle_work += (unsigned)k; /* not ready: wait a little */
  }
}

/* Stage `stage` of block `block`: take it from the channel before (stage 0 makes it), transform it,
 * put it into the channel after (the last stage writes the output). */
static void run_step(int stage, int block, int work, uint32_t *items) {
  const int n = pl->items;
  if (stage == 0) {
    for (int i = 0; i < n; ++i) items[i] = input_of((uint32_t)(block * n + i));
  } else {
    struct slot *f = hold_slot(stage - 1, block, block);
    memcpy(items, buffer_of(stage - 1, block % pl->slots), (size_t)n * sizeof *items);
    f->block = EMPTY;
    Tmk_lock_release(lock_of(stage - 1, block % pl->slots));
  }
  for (int i = 0; i < n; ++i) items[i] = transform(items[i], stage, work);
  if (stage == pl->stages - 1) {
    memcpy(&pl->output[(size_t)block * (size_t)n], items, (size_t)n * sizeof *items);
  } else {
    struct slot *f = hold_slot(stage, block, EMPTY);
    memcpy(buffer_of(stage, block % pl->slots), items, (size_t)n * sizeof *items);
    f->block = block;
    Tmk_lock_release(lock_of(stage, block % pl->slots));
  }
}

static int check(int blocks, int work) {
  const int n = pl->items;
  for (int b = 0; b < blocks; ++b)
    for (int i = 0; i < n; ++i) {
      uint32_t x = input_of((uint32_t)(b * n + i));
      for (int s = 0; s < pl->stages; ++s) x = transform(x, s, work);
      if (pl->output[(size_t)b * (size_t)n + (size_t)i] != x) return 0;
    }
  return 1;
}

int main(int argc, char **argv) {
  Tmk_startup(argc, argv);
  const int blocks = argc > 1 ? atoi(argv[1]) : 384;
  const int items = argc > 2 ? atoi(argv[2]) : 1024;
  const int stages = argc > 3 ? atoi(argv[3]) : 8;
  const int slots = argc > 4 ? atoi(argv[4]) : 4;
  const int work = argc > 5 ? atoi(argv[5]) : 24;
  const int check_result = argc > 6 ? atoi(argv[6]) : 1;
  if (blocks < 1 || items < 1 || (int64_t)blocks * items > (1 << 24) || stages < 1 || stages > 1024 || slots < 2 ||
      slots > 1024 || (int64_t)(stages - 1) * slots * items > (1 << 24) || work < 0 ||
      (int64_t)(stages - 1) * slots > (int64_t)TMK_NLOCKS) {
    if (Tmk_proc_id == 0)
      fprintf(stderr,
              "usage: pipeline [blocks >= 1] [items >= 1] [1 <= stages <= 1024] [2 <= slots <= 1024] [work >= 0] "
              "[check 0|1] (blocks x items and (stages - 1) x slots x items at most 16777216)\n");
    Tmk_exit(2);
  }
  if (Tmk_proc_id == 0) {
    pl = Tmk_malloc(sizeof *pl);
    memset(pl, 0, sizeof *pl);
    pl->stages = stages;
    pl->slots = slots;
    pl->items = items;
    const size_t channels = (size_t)(stages - 1);
    if (channels > 0) { /* one stage alone hands nothing over */
      pl->flags = Tmk_malloc(channels * (size_t)slots * sizeof *pl->flags);
      pl->buffers = Tmk_malloc(channels * (size_t)slots * (size_t)items * sizeof *pl->buffers);
    }
    pl->output = Tmk_malloc((size_t)blocks * (size_t)items * sizeof *pl->output);
    for (size_t f = 0; f < channels * (size_t)slots; ++f) pl->flags[f].block = EMPTY;
    Tmk_distribute(&pl, sizeof pl);
  }
  Tmk_barrier(0);
  TMK_SCOPE_BEGIN("stages");
  uint32_t *block_items = malloc((size_t)items * sizeof *block_items);
  for (int step = 0; step < blocks + stages - 1; ++step)
    for (int stage = (int)Tmk_proc_id; stage < stages; stage += (int)Tmk_nprocs) {
      const int block = step - stage;
      if (block >= 0 && block < blocks) run_step(stage, block, work, block_items);
    }
  free(block_items);
  TMK_SCOPE_END();
  Tmk_barrier(1);
  int status = 0;
  if (Tmk_proc_id == 0) {
    if (check_result) {
      const int ok = check(blocks, work);
      printf("pipeline: %d blocks of %d items through %d stages (%d slots) on %u node(s): %s\n", blocks, items, stages,
             slots, Tmk_nprocs, ok ? "verified" : "WRONG");
      status = ok ? 0 : 1;
    } else {
      printf("pipeline: %d blocks of %d items through %d stages (%d slots) on %u node(s): not checked\n", blocks, items,
             stages, slots, Tmk_nprocs);
    }
  }
  Tmk_exit(status);
}
