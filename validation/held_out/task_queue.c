/* Self-scheduling from a shared task queue under one lock: tasks of uneven cost that spawn tasks.
 *
 * A task integrates 4 / (1 + x^2) over a stretch of [0, 1) with a number of points drawn from a
 * hash of the task's key (1 to 16 times `work`: costs differ sixteenfold). A task less than
 * `depth` generations below a root spawns 0, 1 or 2 subtasks (from the hash too), each with a key
 * of its own (the parent's key and the child's number). The queue is a shared array under lock 0
 * with a head (the next task to take), a tail (the next free place) and the count of outstanding
 * tasks (queued or running). Node 0 queues the `tasks` roots and sizes the queue for every task
 * the roots will spawn (it counts them first: only hashes). Every node then loops: under the lock
 * it takes the task at the head; it runs it outside the lock and writes its result into the
 * result slot of the task's place in the queue (each slot written by exactly one task, pages
 * shared between nodes); under the lock again it queues the task's subtasks and counts the task
 * done. A node finding the queue empty while tasks are still outstanding (their subtasks may yet
 * come) releases the lock, waits a little and looks again; it stops when nothing is outstanding.
 * After a barrier node 0 checks the results, sorted by key, against every task run sequentially
 * in private memory, and prints how many tasks each node ran.
 *
 * Arguments: tasks depth work check (default 300 6 12000 1; check 0 skips node 0's check). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tmk.h>

#define MAX_DEPTH 12
#define MAX_TASKS (1 << 20) /* 32 MiB of queue and results: half the default shared heap */

struct task {
  uint64_t key; /* the root's number in the high 32 bits, the path from it below (2 bits a generation) */
  int32_t generation;
  int32_t unused;
};
struct result {
  uint64_t key;
  double value;
};
struct queue {
  int head, tail;  /* under lock 0 */
  int outstanding; /* tasks queued or running, under lock 0 */
  int depth, work;
  struct task *task;     /* every task ever queued, in queue order */
  struct result *result; /* result[q]: written by whoever runs task[q] */
  int *tasks_by_node;    /* nodes: how many tasks each node ran (written by that node only) */
};
static struct queue *q;              /* shared; node 0 allocates, Tmk_distribute gives the pointer */
static volatile unsigned idle_work; /* the private computation between looks at an empty queue */

static uint32_t mix64(uint64_t k) {
  k ^= k >> 33;
  k *= 0xff51afd7ed558ccdull;
  k ^= k >> 33;
  k *= 0xc4ceb9fe1a85ec53ull;
  k ^= k >> 33;
  return (uint32_t)k;
}

static int children_of(struct task t, int depth) { return t.generation < depth ? (int)(mix64(t.key) >> 4) % 3 : 0; }

static struct task root(int r) { return (struct task){(uint64_t)r << 32, 0, 0}; }

/* Child c (0 or 1) of t: its path extended by the digit c + 1 (unique while depth <= 12). */
static struct task child(struct task t, int c) {
  const uint64_t path = (t.key & 0xffffffffu) * 4 + 1 + (uint64_t)c;
  return (struct task){(t.key >> 32 << 32) | path, t.generation + 1, 0};
}

/* The midpoint rule over the task's stretch of [0, 1). */
static double run_task(struct task t, int work) {
  const uint32_t h = mix64(t.key ^ 0x5bd1e995u);
  const int points = work * (1 + (int)(h % 16u));
  const double start = (double)(h >> 8 & 0xffff) / 65536.0, width = 1.0 / 64.0;
  const double step = width / points;
  double sum = 0.0;
  for (int k = 0; k < points; ++k) {
    const double x = start + (k + 0.5) * step;
    sum += 4.0 / (1.0 + x * x);
  }
  return sum * step;
}

/* How many tasks a root spawns, itself included. */
static int64_t tree_size(struct task t, int depth) {
  int64_t size = 1;
  for (int c = 0; c < children_of(t, depth); ++c) size += tree_size(child(t, c), depth);
  return size;
}

/* The next task's place in the queue, or -1 when no task is outstanding any more. */
static int take_task(void) {
  for (;;) {
    Tmk_lock_acquire(0);
    if (q->head < q->tail) {
      const int at = q->head++;
      Tmk_lock_release(0);
      return at;
    }
    const int finished = q->outstanding == 0;
    Tmk_lock_release(0);
    if (finished) return -1;
    for (int k = 0; k < 2000; ++k) idle_work += (unsigned)k; /* subtasks may come: wait a little */
  }
}

static void finish_task(struct task t) {
  const int spawned = children_of(t, q->depth);
  Tmk_lock_acquire(0);
  for (int c = 0; c < spawned; ++c) q->task[q->tail++] = child(t, c);
  q->outstanding += spawned - 1;
  Tmk_lock_release(0);
}

static void work_loop(void) {
  int ran = 0;
  for (int at = take_task(); at >= 0; at = take_task(), ++ran) {
    const struct task t = q->task[at];
    q->result[at] = (struct result){t.key, run_task(t, q->work)};
    finish_task(t);
  }
  q->tasks_by_node[Tmk_proc_id] = ran;
}

static int compare_results(const void *a, const void *b) {
  const struct result *x = a, *y = b;
  return (x->key > y->key) - (x->key < y->key);
}

static void run_tree(struct task t, int depth, int work, struct result *out, int64_t *n) {
  out[(*n)++] = (struct result){t.key, run_task(t, work)};
  for (int c = 0; c < children_of(t, depth); ++c) run_tree(child(t, c), depth, work, out, n);
}

/* Node 0: every task run sequentially, compared by key with what the nodes wrote. */
static int check(int roots, int64_t total) {
  struct result *expected = malloc((size_t)total * sizeof *expected);
  struct result *found = malloc((size_t)total * sizeof *found);
  if (!expected || !found) return 0;
  int64_t n = 0;
  for (int r = 0; r < roots; ++r) run_tree(root(r), q->depth, q->work, expected, &n);
  memcpy(found, q->result, (size_t)total * sizeof *found);
  qsort(expected, (size_t)total, sizeof *expected, compare_results);
  qsort(found, (size_t)total, sizeof *found, compare_results);
  int64_t wrong = n != total || q->head != total || q->outstanding != 0;
  for (int64_t i = 0; i < total; ++i)
    wrong += found[i].key != expected[i].key || memcmp(&found[i].value, &expected[i].value, sizeof(double)) != 0;
  free(expected);
  free(found);
  return wrong == 0;
}

/* Node 0: the queue holding the roots, with room for all `total` tasks. */
static void fill_queue(int roots, int depth, int work, int64_t total) {
  q = Tmk_malloc(sizeof *q);
  memset(q, 0, sizeof *q);
  q->depth = depth;
  q->work = work;
  q->task = Tmk_malloc((size_t)total * sizeof *q->task);
  q->result = Tmk_malloc((size_t)total * sizeof *q->result);
  q->tasks_by_node = Tmk_malloc((size_t)Tmk_nprocs * sizeof *q->tasks_by_node);
  for (int r = 0; r < roots; ++r) q->task[r] = root(r);
  q->tail = roots;
  q->outstanding = roots;
  Tmk_distribute(&q, sizeof q);
}

/* Argument `index`, or `fallback` when absent; 0 when it is not a whole number in [low, high]. */
static int argument(int argc, char **argv, int index, long fallback, long low, long high, long *value) {
  *value = fallback;
  if (argc <= index) return 1;
  char *end = NULL;
  *value = strtol(argv[index], &end, 10);
  return end != argv[index] && *end == '\0' && *value >= low && *value <= high;
}

int main(int argc, char **argv) {
  Tmk_startup(argc, argv);
  long roots = 0, depth = 0, work = 0, check_result = 0;
  if (!argument(argc, argv, 1, 300, 1, 1 << 16, &roots) || !argument(argc, argv, 2, 6, 0, MAX_DEPTH, &depth) ||
      !argument(argc, argv, 3, 12000, 1, 1 << 20, &work) || !argument(argc, argv, 4, 1, 0, 1, &check_result)) {
    if (Tmk_proc_id == 0)
      fprintf(stderr, "usage: task_queue [1 <= tasks <= 65536] [0 <= depth <= %d] [1 <= work <= 1048576] "
                      "[check 0|1]\n", MAX_DEPTH);
    Tmk_exit(2);
  }
  int64_t total = 0; /* every node counts them (only hashes), so all refuse too many alike */
  for (int r = 0; r < roots; ++r) total += tree_size(root(r), (int)depth);
  if (total > MAX_TASKS) {
    if (Tmk_proc_id == 0)
      fprintf(stderr, "task_queue: %ld roots at depth %ld make %lld tasks, more than the %d the queue takes\n",
              roots, depth, (long long)total, MAX_TASKS);
    Tmk_exit(2);
  }
  if (Tmk_proc_id == 0) fill_queue((int)roots, (int)depth, (int)work, total);
  Tmk_barrier(0);
  TMK_SCOPE_BEGIN("tasks");
  work_loop();
  TMK_SCOPE_END();
  Tmk_barrier(1);
  int status = 0;
  if (Tmk_proc_id == 0) {
    char split[4096] = "";
    for (unsigned p = 0; p < Tmk_nprocs && strlen(split) + 16 < sizeof split; ++p)
      snprintf(split + strlen(split), sizeof split - strlen(split), "%s%d", p ? "/" : "", q->tasks_by_node[p]);
    const int ok = !check_result || check((int)roots, total);
    printf("task_queue: %ld roots, depth %ld, work %ld: %lld tasks on %u node(s) (tasks run %s): %s\n", roots, depth,
           work, (long long)total, Tmk_nprocs, split, !check_result ? "not checked" : ok ? "verified" : "WRONG");
    status = ok ? 0 : 1;
  }
  Tmk_exit(status);
}
