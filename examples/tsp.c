/* Travelling salesman by branch and bound, TreadMarks style.
 *
 * Cities lie on a 1000 x 1000 grid (drawn from a hash); distances are rounded Euclidean. Node 0
 * puts every partial tour of the first `depth` cities after city 0 into a shared pool; nodes take
 * the next one under lock 0 and complete it by depth-first search, pruning with the shortest tour
 * known. That bound lives in shared memory under lock 1: a node reads it when it takes a tour and
 * updates it when it finds a shorter one. Nodes take tours until the pool is empty; a barrier
 * ends the search. Node 0 then checks that the shared best tour visits every city once with the
 * length recorded, and that a sequential search in private memory finds the same length.
 *
 * Arguments: cities depth check (default 10 2 1; check 0 skips node 0's sequential search). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tmk.h>

#define MAX_CITIES 16

struct shared {
  int next;                 /* the next partial tour to take (lock 0) */
  int count;                /* partial tours in the pool */
  int best;                 /* the shortest complete tour so far (lock 1) */
  int best_tour[MAX_CITIES];
  int pool[];               /* count partial tours of depth + 1 cities each */
};
static struct shared *s;
static int n, depth;
static int dist[MAX_CITIES][MAX_CITIES];

static void make_cities(void) {
  int x[MAX_CITIES], y[MAX_CITIES];
  for (int i = 0; i < n; ++i) {
    uint32_t h = (uint32_t)(i + 1) * 2654435761u;
    h ^= h >> 15;
    x[i] = (int)(h % 1000);
    y[i] = (int)((h / 1000) % 1000);
  }
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) dist[i][j] = (int)lround(hypot(x[i] - x[j], y[i] - y[j]));
}

/* Depth-first completion of tour[0..len), length so far `length`; `bound` is updated in place. */
static void search(int *tour, int len, int length, unsigned used, int *bound, int *best_tour) {
  if (length >= *bound) return;
  if (len == n) {
    const int total = length + dist[tour[n - 1]][0];
    if (total < *bound) {
      *bound = total;
      memcpy(best_tour, tour, sizeof(int) * (size_t)n);
    }
    return;
  }
  for (int c = 1; c < n; ++c) {
    if (used & (1u << c)) continue;
    tour[len] = c;
    search(tour, len + 1, length + dist[tour[len - 1]][c], used | (1u << c), bound, best_tour);
  }
}

/* Every partial tour 0, c1, ..., c_depth into pool (when pool is non-null); returns the count. */
static int enumerate(int *tour, int len, unsigned used, int *pool, int count) {
  if (len == depth + 1) {
    if (pool) memcpy(&pool[count * (depth + 1)], tour, sizeof(int) * (size_t)(depth + 1));
    return count + 1;
  }
  for (int c = 1; c < n; ++c)
    if (!(used & (1u << c))) {
      tour[len] = c;
      count = enumerate(tour, len + 1, used | (1u << c), pool, count);
    }
  return count;
}

int main(int argc, char **argv) {
  Tmk_startup(argc, argv);
  n = argc > 1 ? atoi(argv[1]) : 10;
  depth = argc > 2 ? atoi(argv[2]) : 2;
  const int check_result = argc > 3 ? atoi(argv[3]) : 1;
  if (n < 3 || n > MAX_CITIES || depth < 0 || depth > n - 2) {
    if (Tmk_proc_id == 0)
      fprintf(stderr, "usage: tsp [3 <= cities <= %d] [0 <= depth <= cities - 2] [check]\n", MAX_CITIES);
    Tmk_exit(2);
  }
  make_cities();
  int tour[MAX_CITIES] = {0};
  if (Tmk_proc_id == 0) {
    const int count = enumerate(tour, 1, 1u, NULL, 0);
    s = Tmk_malloc(sizeof *s + sizeof(int) * (size_t)(count * (depth + 1)));
    s->count = enumerate(tour, 1, 1u, s->pool, 0);
    s->next = 0;
    s->best = 1 << 30;
    Tmk_distribute(&s, sizeof s);
  }
  Tmk_barrier(0);
  TMK_SCOPE_BEGIN("search");
  for (;;) {
    Tmk_lock_acquire(0);
    const int k = s->next < s->count ? s->next++ : -1;
    Tmk_lock_release(0);
    if (k < 0) break;
    Tmk_lock_acquire(1);
    int bound = s->best;
    Tmk_lock_release(1);
    unsigned used = 0;
    int length = 0;
    for (int i = 0; i <= depth; ++i) {
      tour[i] = s->pool[k * (depth + 1) + i];
      used |= 1u << tour[i];
      if (i > 0) length += dist[tour[i - 1]][tour[i]];
    }
    int found[MAX_CITIES];
    const int before = bound;
    search(tour, depth + 1, length, used, &bound, found);
    if (bound < before) {
      Tmk_lock_acquire(1);
      if (bound < s->best) {
        s->best = bound;
        memcpy(s->best_tour, found, sizeof(int) * (size_t)n);
      }
      Tmk_lock_release(1);
    }
  }
  TMK_SCOPE_END();
  Tmk_barrier(1);
  int status = 0;
  if (Tmk_proc_id == 0) {
    int bound = 1 << 30, best_tour[MAX_CITIES];
    tour[0] = 0;
    if (check_result) search(tour, 1, 0, 1u, &bound, best_tour);
    /* The shared best tour must visit every city once, start at city 0 and have the length recorded. */
    unsigned seen = 0;
    for (int i = 0; i < n; ++i)
      if (s->best_tour[i] >= 0 && s->best_tour[i] < n) seen |= 1u << s->best_tour[i];
    int valid = s->best_tour[0] == 0 && seen == (1u << n) - 1;
    if (valid) {
      int length = dist[s->best_tour[n - 1]][0];
      for (int i = 1; i < n; ++i) length += dist[s->best_tour[i - 1]][s->best_tour[i]];
      valid = length == s->best;
    }
    const int ok = valid && (!check_result || bound == s->best);
    printf("tsp %d cities, depth %d on %u node(s): shortest tour %d, %s\n", n, depth, Tmk_nprocs, s->best,
           !valid          ? "WRONG (the shared best tour is not a tour of that length)"
           : !check_result ? "a valid tour, not checked against the sequential search"
           : ok            ? "verified"
                           : "WRONG (the sequential search found another length)");
    status = ok ? 0 : 1;
  }
  Tmk_exit(status);
}
