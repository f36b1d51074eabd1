/* A shared hash table with a lock per bucket: many short critical sections on scattered pages.
 *
 * The table maps 32-bit keys to a count and a sum. Its bucket headers (the chain's head and
 * length) lie side by side in shared memory, and its entries come from a shared pool in which each
 * node has a slice of its own (a private cursor: only that node takes entries from its slice).
 * The operations are numbered 0 .. ops-1 and each node does a contiguous block of them (unlike
 * examples/wordcount.c, which interleaves the words): operation i draws a key from a hash of i —
 * a quarter of the operations hit the 1/64 of the keys that are hot, so some buckets' locks move
 * between the nodes all the time — and a value. It takes the key's bucket lock, walks the chain,
 * adds the value to the entry's sum and one to its count, or links a new entry from its slice at
 * the head of the chain, then releases. After a barrier node 0 checks every bucket (the length
 * recorded, each key in its bucket once) and every key's count and sum against a sequential pass
 * over the operations in private memory.
 *
 * Arguments: ops keys buckets check (default 16000 4000 256 1; check 0 skips node 0's check). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <tmk.h>

struct entry {
  uint32_t key;
  int32_t next; /* index of the next entry in the bucket's chain, -1 at its end */
  uint32_t count;
  uint64_t sum;
};
struct bucket {
  int32_t head; /* -1: empty */
  int32_t length;
};
struct table {
  int buckets;
  int keys;
  struct bucket *bucket;
  struct entry *pool; /* nodes x keys entries: a node may be the first to insert every key */
};
static struct table *t;   /* shared; node 0 allocates, Tmk_distribute gives the pointer */
static int32_t pool_next; /* the next free entry of this node's slice (private) */

static uint32_t mix(uint32_t h) {
  h ^= h >> 16;
  h *= 0x7feb352du;
  h ^= h >> 15;
  h *= 0x846ca68bu;
  h ^= h >> 16;
  return h;
}

/* Operation i's key: one in four from the hot 1/64 of the keys. */
static uint32_t key_of(uint32_t i, uint32_t keys) {
  const uint32_t h = mix(i * 2654435761u + 1u);
  const uint32_t hot = keys / 64 > 0 ? keys / 64 : 1;
  return (h & 3u) == 0 ? (h >> 2) % hot : (h >> 2) % keys;
}

static uint32_t value_of(uint32_t i) { return mix(i ^ 0xa5a5a5a5u) & 0xffffu; }

static uint32_t bucket_of(uint32_t key, int buckets) { return mix(key + 0x632be5abu) % (uint32_t)buckets; }

static void apply(uint32_t key, uint32_t value) {
  const uint32_t b = bucket_of(key, t->buckets);
  Tmk_lock_acquire(b);
  int32_t at = t->bucket[b].head;
  while (at >= 0 && t->pool[at].key != key) at = t->pool[at].next;
  if (at >= 0) {
    ++t->pool[at].count;
    t->pool[at].sum += value;
  } else {
    if (pool_next == t->keys) {
      fprintf(stderr, "hash_table: node %u's slice of the entry pool is full\n", Tmk_proc_id);
      abort();
    }
    at = (int32_t)Tmk_proc_id * t->keys + pool_next++;
    struct entry *e = &t->pool[at];
    e->key = key;
    e->count = 1;
    e->sum = value;
    e->next = t->bucket[b].head;
    t->bucket[b].head = at;
    ++t->bucket[b].length;
  }
  Tmk_lock_release(b);
}

struct expected {
  uint32_t count;
  uint64_t sum;
};

/* Every chain as long as recorded, every key in its own bucket once with the expected count and
 * sum, and every key that was used found. */
static int check(int ops) {
  struct expected *want = calloc((size_t)t->keys, sizeof *want);
  char *seen = calloc((size_t)t->keys, 1);
  if (!want || !seen) return 0;
  for (int i = 0; i < ops; ++i) {
    const uint32_t k = key_of((uint32_t)i, (uint32_t)t->keys);
    ++want[k].count;
    want[k].sum += value_of((uint32_t)i);
  }
  int wrong = 0;
  for (int b = 0; b < t->buckets; ++b) {
    int length = 0;
    for (int32_t at = t->bucket[b].head; at >= 0; at = t->pool[at].next, ++length) {
      const struct entry *e = &t->pool[at];
      if (e->key >= (uint32_t)t->keys || seen[e->key] || bucket_of(e->key, t->buckets) != (uint32_t)b ||
          e->count != want[e->key].count || e->sum != want[e->key].sum) {
        ++wrong;
        continue;
      }
      seen[e->key] = 1;
    }
    wrong += length != t->bucket[b].length;
  }
  for (int k = 0; k < t->keys; ++k) wrong += want[k].count > 0 && !seen[k];
  free(want);
  free(seen);
  return wrong == 0;
}

int main(int argc, char **argv) {
  Tmk_startup(argc, argv);
  const int ops = argc > 1 ? atoi(argv[1]) : 16000;
  const int keys = argc > 2 ? atoi(argv[2]) : 4000;
  const int buckets = argc > 3 ? atoi(argv[3]) : 256;
  const int check_result = argc > 4 ? atoi(argv[4]) : 1;
  const int nodes = (int)Tmk_nprocs;
  if (ops < 1 || keys < 1 || (int64_t)keys * nodes > INT32_MAX || buckets < 1 || buckets > (int)TMK_NLOCKS) {
    if (Tmk_proc_id == 0)
      fprintf(stderr, "usage: hash_table [ops >= 1] [keys >= 1] [1 <= buckets <= %u] [check 0|1]\n", TMK_NLOCKS);
    Tmk_exit(2);
  }
  if (Tmk_proc_id == 0) {
    t = Tmk_malloc(sizeof *t);
    t->buckets = buckets;
    t->keys = keys;
    t->bucket = Tmk_malloc((size_t)buckets * sizeof *t->bucket);
    t->pool = Tmk_malloc((size_t)nodes * (size_t)keys * sizeof *t->pool);
    for (int b = 0; b < buckets; ++b) t->bucket[b] = (struct bucket){-1, 0};
    Tmk_distribute(&t, sizeof t);
  }
  Tmk_barrier(0);
  TMK_SCOPE_BEGIN("update");
  const int lo = (int)((int64_t)ops * Tmk_proc_id / Tmk_nprocs);
  const int hi = (int)((int64_t)ops * (Tmk_proc_id + 1) / Tmk_nprocs);
  for (int i = lo; i < hi; ++i) apply(key_of((uint32_t)i, (uint32_t)keys), value_of((uint32_t)i));
  TMK_SCOPE_END();
  Tmk_barrier(1);
  int status = 0;
  if (Tmk_proc_id == 0) {
    if (check_result) {
      const int ok = check(ops);
      printf("hash_table: %d operations on %d keys, %d buckets on %u node(s): %s\n", ops, keys, buckets,
             Tmk_nprocs, ok ? "verified" : "WRONG");
      status = ok ? 0 : 1;
    } else {
      printf("hash_table: %d operations on %d keys, %d buckets on %u node(s): not checked\n", ops, keys, buckets,
             Tmk_nprocs);
    }
  }
  Tmk_exit(status);
}
