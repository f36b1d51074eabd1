/* Word count in a shared hash table, one lock per bucket: fine-grained sharing, TreadMarks style.
 *
 * The text is WORDS words drawn from a hash over a vocabulary of VOCAB words ("w<k>"). Node i
 * counts the words i, i + N, i + 2N, ...: for each it takes its bucket's lock, walks the bucket's
 * chain of entries and increments the word's count, or links a new entry taken from the node's
 * own slice of a shared entry pool. Every insert and most increments touch a page another node
 * wrote last, so the run is page faults and lock transfers with little computation between them
 * (issue 33's benchmark). After a barrier node 0 checks every count against a sequential count
 * in private memory.
 *
 * Arguments: words vocab buckets check (default 20001 2000 256 1; check 0 skips node 0's check). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tmk.h>

struct entry {
  char word[12];
  int count;
  int next; /* index of the next entry in the bucket's chain, -1 at its end */
};
struct shared {
  int buckets; /* the chains' heads follow the pool */
  int per_node; /* entries in each node's slice of the pool */
  int used[64]; /* entries taken from each node's slice (written by that node only) */
  struct entry *pool;
  int *heads;
};
static struct shared *s;

static unsigned word_of(int i, int vocab) {
  uint32_t h = (uint32_t)(i + 1) * 2654435761u;
  h ^= h >> 13;
  h *= 0x5bd1e995u;
  h ^= h >> 15;
  return h % (unsigned)vocab;
}

static unsigned bucket_of(const char *word, int buckets) {
  uint32_t h = 2166136261u;
  for (const char *c = word; *c; ++c) h = (h ^ (uint8_t)*c) * 16777619u;
  return h % (unsigned)buckets;
}

static void count_word(const char *word) {
  const unsigned b = bucket_of(word, s->buckets);
  Tmk_lock_acquire(b);
  int at = s->heads[b];
  while (at >= 0 && strcmp(s->pool[at].word, word) != 0) at = s->pool[at].next;
  if (at >= 0) {
    ++s->pool[at].count;
  } else {
    const int me = (int)Tmk_proc_id;
    if (s->used[me] == s->per_node) {
      fprintf(stderr, "wordcount: node %d's slice of the entry pool is full\n", me);
      abort();
    }
    at = me * s->per_node + s->used[me]++;
    struct entry *e = &s->pool[at];
    snprintf(e->word, sizeof e->word, "%s", word);
    e->count = 1;
    e->next = s->heads[b];
    s->heads[b] = at;
  }
  Tmk_lock_release(b);
}

static int check(int words, int vocab) {
  int *expected = calloc((size_t)vocab, sizeof *expected);
  for (int i = 0; i < words; ++i) ++expected[word_of(i, vocab)];
  int found = 0, wrong = 0;
  for (int b = 0; b < s->buckets; ++b)
    for (int at = s->heads[b]; at >= 0; at = s->pool[at].next) {
      const int k = atoi(s->pool[at].word + 1);
      if (k < 0 || k >= vocab || expected[k] != s->pool[at].count) ++wrong;
      ++found;
    }
  int distinct = 0;
  for (int k = 0; k < vocab; ++k) distinct += expected[k] > 0;
  free(expected);
  return wrong == 0 && found == distinct;
}

int main(int argc, char **argv) {
  Tmk_startup(argc, argv);
  const int words = argc > 1 ? atoi(argv[1]) : 20001;
  const int vocab = argc > 2 ? atoi(argv[2]) : 2000;
  const int buckets = argc > 3 ? atoi(argv[3]) : 256;
  const int check_result = argc > 4 ? atoi(argv[4]) : 1;
  const int nodes = (int)Tmk_nprocs;
  if (words < 1 || vocab < 1 || vocab > 99999999 || buckets < 1 || nodes > 64) {
    if (Tmk_proc_id == 0) fprintf(stderr, "wordcount: words >= 1, 1 <= vocab <= 99999999, buckets >= 1, <= 64 nodes\n");
    Tmk_exit(2);
  }
  if (Tmk_proc_id == 0) {
    s = Tmk_malloc(sizeof *s);
    memset(s, 0, sizeof *s);
    s->buckets = buckets;
    s->per_node = vocab; /* a node may be first to see every word */
    s->pool = Tmk_malloc((size_t)nodes * (size_t)vocab * sizeof *s->pool);
    s->heads = Tmk_malloc((size_t)buckets * sizeof *s->heads);
    if (!s->pool || !s->heads) {
      fprintf(stderr, "wordcount: the shared heap is too small (raise tmk.heap_mb)\n");
      Tmk_exit(2);
    }
    for (int b = 0; b < buckets; ++b) s->heads[b] = -1;
    Tmk_distribute(&s, sizeof s);
  }
  Tmk_barrier(0);
  TMK_SCOPE_BEGIN("count");
  char word[12];
  for (int i = (int)Tmk_proc_id; i < words; i += nodes) {
    snprintf(word, sizeof word, "w%u", word_of(i, vocab));
    count_word(word);
  }
  TMK_SCOPE_END();
  Tmk_barrier(1);
  int status = 0;
  if (Tmk_proc_id == 0) {
    if (check_result) {
      const int ok = check(words, vocab);
      printf("wordcount: %d words, %d buckets on %u node(s): %s\n", words, buckets, Tmk_nprocs,
             ok ? "verified" : "WRONG");
      status = ok ? 0 : 1;
    } else {
      printf("wordcount: %d words, %d buckets on %u node(s): not checked\n", words, buckets, Tmk_nprocs);
    }
  }
  Tmk_exit(status);
}
