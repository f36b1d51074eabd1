/* Molecular dynamics in the style of SPLASH Water, simplified: N particles (one per molecule) in
 * a periodic box with a Lennard-Jones pair force and a cutoff, integrated with velocity Verlet.
 *
 * Positions, velocities and forces are shared arrays. Each node owns a contiguous block of
 * molecules. A step: every node computes the forces of the pairs (i, j > i) with i in its block
 * into a private array (Newton's third law: each pair once), then adds its contributions into the
 * shared forces block by block, each block under its own lock (as Water's force accumulation);
 * barrier; every node moves its own molecules; barrier. Node 0 checks the final positions against
 * a sequential run (floating-point sums differ in order: relative tolerance 1e-9) and prints the
 * potential energy.
 *
 * Arguments: molecules steps check (default 64 3 1). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tmk.h>

struct system {
  double (*pos)[3];
  double (*vel)[3];
  double (*force)[3];
  double energy; /* potential energy of the last step (lock 0) */
};
static struct system *sys;
static int n;
static double box, cutoff2;
static const double dt = 0.002;

static void initial(int i, double pos[3], double vel[3]) {
  const int side = (int)ceil(cbrt((double)n));
  const double spacing = box / side;
  pos[0] = (i % side + 0.5) * spacing;
  pos[1] = (i / side % side + 0.5) * spacing;
  pos[2] = (i / (side * side) + 0.5) * spacing;
  for (int d = 0; d < 3; ++d) vel[d] = 0.1 * sin(1.7 * i + 2.3 * d);
}

/* Forces of the pairs (i, j > i), i in [first, last), added into f; returns their energy. */
static double pair_forces(double (*pos)[3], int first, int last, double (*f)[3]) {
  double energy = 0;
  for (int i = first; i < last; ++i)
    for (int j = i + 1; j < n; ++j) {
      double d[3], r2 = 0;
      for (int k = 0; k < 3; ++k) {
        d[k] = pos[i][k] - pos[j][k];
        d[k] -= box * nearbyint(d[k] / box); /* nearest periodic image */
        r2 += d[k] * d[k];
      }
      if (r2 >= cutoff2) continue;
      const double inv2 = 1.0 / r2, inv6 = inv2 * inv2 * inv2;
      const double scale = 24.0 * inv2 * inv6 * (2.0 * inv6 - 1.0);
      energy += 4.0 * inv6 * (inv6 - 1.0);
      for (int k = 0; k < 3; ++k) {
        f[i][k] += scale * d[k];
        f[j][k] -= scale * d[k];
      }
    }
  return energy;
}

static void move(double (*pos)[3], double (*vel)[3], double (*f)[3], int first, int last) {
  for (int i = first; i < last; ++i)
    for (int k = 0; k < 3; ++k) {
      vel[i][k] += dt * f[i][k];
      pos[i][k] = fmod(pos[i][k] + dt * vel[i][k] + box, box);
    }
}

static int block_begin(int b, int blocks) { return (int)((long)n * b / blocks); }

int main(int argc, char **argv) {
  Tmk_startup(argc, argv);
  n = argc > 1 ? atoi(argv[1]) : 64;
  const int steps = argc > 2 ? atoi(argv[2]) : 3;
  const int check_result = argc > 3 ? atoi(argv[3]) : 1;
  if (n < 2 || steps < 0) {
    if (Tmk_proc_id == 0) fprintf(stderr, "usage: water [molecules >= 2] [steps] [check]\n");
    Tmk_exit(2);
  }
  box = cbrt(n / 0.8); /* reduced density 0.8 */
  cutoff2 = 2.5 * 2.5;
  const size_t bytes = sizeof(double[3]) * (size_t)n;
  if (Tmk_proc_id == 0) {
    sys = Tmk_malloc(sizeof *sys);
    sys->pos = Tmk_malloc(bytes);
    sys->vel = Tmk_malloc(bytes);
    sys->force = Tmk_malloc(bytes);
    for (int i = 0; i < n; ++i) initial(i, sys->pos[i], sys->vel[i]);
    memset(sys->force, 0, bytes);
    sys->energy = 0;
    Tmk_distribute(&sys, sizeof sys);
  }
  Tmk_barrier(0);
  const int P = (int)Tmk_nprocs, me = (int)Tmk_proc_id;
  const int first = block_begin(me, P), last = block_begin(me + 1, P);
  double (*mine)[3] = malloc(bytes);
  for (int step = 0; step < steps; ++step) {
    TMK_SCOPE_BEGIN("forces");
    memset(mine, 0, bytes);
    const double energy = pair_forces(sys->pos, first, last, mine);
    TMK_SCOPE_END();
    TMK_SCOPE_BEGIN("accumulate");
    for (int k = 0; k < P; ++k) { /* start at our own block: the locks are taken in a rotating order */
      const int b = (me + k) % P;
      Tmk_lock_acquire(1 + (unsigned)b);
      for (int i = block_begin(b, P); i < block_begin(b + 1, P); ++i)
        for (int d = 0; d < 3; ++d) sys->force[i][d] += mine[i][d];
      Tmk_lock_release(1 + (unsigned)b);
    }
    Tmk_lock_acquire(0);
    sys->energy += energy;
    Tmk_lock_release(0);
    TMK_SCOPE_END();
    Tmk_barrier(1);
    TMK_SCOPE_BEGIN("move");
    move(sys->pos, sys->vel, sys->force, first, last);
    for (int i = first; i < last; ++i) memset(sys->force[i], 0, sizeof sys->force[i]);
    TMK_SCOPE_END();
    if (step + 1 < steps && me == 0) sys->energy = 0; /* ordered by the barrier below */
    Tmk_barrier(2);
  }
  int status = 0;
  if (me == 0) {
    double worst = 0;
    if (check_result) {
      double (*pos)[3] = malloc(bytes), (*vel)[3] = malloc(bytes), (*f)[3] = malloc(bytes);
      for (int i = 0; i < n; ++i) initial(i, pos[i], vel[i]);
      for (int step = 0; step < steps; ++step) {
        memset(f, 0, bytes);
        pair_forces(pos, 0, n, f);
        move(pos, vel, f, 0, n);
      }
      for (int i = 0; i < n; ++i)
        for (int k = 0; k < 3; ++k) {
          double diff = fabs(pos[i][k] - sys->pos[i][k]);
          diff = fmin(diff, box - diff); /* across the periodic boundary */
          worst = fmax(worst, diff / box);
        }
    }
    const int ok = worst <= 1e-9;
    printf("water %d molecules, %d steps on %u node(s): potential energy %.6f, %s\n", n, steps, Tmk_nprocs, sys->energy,
           !check_result ? "not checked" : ok ? "verified" : "WRONG (positions differ from the sequential run)");
    status = ok ? 0 : 1;
  }
  free(mine);
  Tmk_exit(status);
}
