/* Molecular dynamics in the style of SPLASH Water, simplified: N particles (one per molecule) in
 * a periodic box with a Lennard-Jones pair force and a cutoff (reduced units), starting on a cubic
 * lattice, integrated with symplectic Euler (velocities from the forces, then positions from the
 * new velocities).
 *
 * Positions, velocities and forces are shared arrays. Each node owns a contiguous block of
 * molecules. As in Water, molecule i interacts with the n/2 molecules after it (cyclically), so
 * every pair is computed once (Newton's third law) and every node has the same amount of work. A
 * step: every node computes the forces of its molecules' pairs into a private array, then adds its
 * contributions into the shared forces block by block - its own block and the blocks its pairs
 * reach - each block under its own lock (lock 1 + block), starting at its own block so that the
 * nodes take the locks in a rotating order; the potential energy is summed under lock 0; barrier;
 * every node moves its own molecules and clears their forces; barrier. Node 0 checks the final
 * positions and the energy against a sequential run in private memory (the forces are summed in
 * another order: relative tolerance 1e-9) and prints the potential energy.
 *
 * Arguments: molecules steps check (default 64 3 1; check 0 skips node 0's sequential run). */
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
static struct system *sys; /* shared; node 0 allocates, Tmk_distribute gives the pointer */
static int n, side;
static double box, cutoff2;
static const double dt = 0.002, spacing = 1.1;

/* Molecule i starts on a cubic lattice of `side` sites a side (spacing 1.1) with a velocity from
 * a formula of i: the same data on every node and in the sequential check. */
static void initial(int i, double pos[3], double vel[3]) {
  pos[0] = (i % side + 0.5) * spacing;
  pos[1] = (i / side % side + 0.5) * spacing;
  pos[2] = (i / (side * side) + 0.5) * spacing;
  for (int d = 0; d < 3; ++d) vel[d] = 0.1 * sin(1.7 * i + 2.3 * d);
}

/* Forces of the pairs of molecules i in [first, last) with the n/2 molecules after i (modulo n;
 * for even n the pair at distance n/2 belongs to the smaller i), added into f; returns their
 * potential energy. Over [0, n) that is every pair exactly once. */
static double pair_forces(double (*pos)[3], int first, int last, double (*f)[3]) {
  double energy = 0;
  for (int i = first; i < last; ++i) {
    const int reach = n % 2 == 0 && i >= n / 2 ? n / 2 - 1 : n / 2;
    for (int k = 1; k <= reach; ++k) {
      const int j = (i + k) % n;
      double d[3], r2 = 0;
      for (int c = 0; c < 3; ++c) {
        d[c] = pos[i][c] - pos[j][c];
        d[c] -= box * nearbyint(d[c] / box); /* nearest periodic image */
        r2 += d[c] * d[c];
      }
      if (r2 >= cutoff2) continue;
      const double inv2 = 1.0 / r2, inv6 = inv2 * inv2 * inv2;
      const double scale = 24.0 * inv2 * inv6 * (2.0 * inv6 - 1.0);
      energy += 4.0 * inv6 * (inv6 - 1.0);
      for (int c = 0; c < 3; ++c) {
        f[i][c] += scale * d[c];
        f[j][c] -= scale * d[c];
      }
    }
  }
  return energy;
}

static void move(double (*pos)[3], double (*vel)[3], double (*f)[3], int first, int last) {
  for (int i = first; i < last; ++i)
    for (int c = 0; c < 3; ++c) {
      vel[i][c] += dt * f[i][c];
      pos[i][c] = fmod(pos[i][c] + dt * vel[i][c] + box, box);
    }
}

static int block_begin(int b, int blocks) { return (int)((long)n * b / blocks); }

/* Does [lo, hi) meet [a, b)? */
static int overlaps(int lo, int hi, int a, int b) { return lo < hi && a < b && lo < b && a < hi; }

int main(int argc, char **argv) {
  Tmk_startup(argc, argv);
  n = argc > 1 ? atoi(argv[1]) : 64;
  const int steps = argc > 2 ? atoi(argv[2]) : 3;
  const int check_result = argc > 3 ? atoi(argv[3]) : 1;
  if (n < 2 || steps < 0) {
    if (Tmk_proc_id == 0) fprintf(stderr, "usage: water [molecules >= 2] [steps >= 0] [check]\n");
    Tmk_exit(2);
  }
  for (side = 1; side * side * side < n;) ++side;
  box = side * spacing;                 /* reduced density 0.75 when n is a cube */
  cutoff2 = pow(fmin(2.5, box / 2), 2); /* within half the box: one image per pair */
  const size_t bytes = sizeof(double[3]) * (size_t)n;
  if (Tmk_proc_id == 0) {
    TMK_SCOPE_BEGIN("init");
    sys = Tmk_malloc(sizeof *sys);
    sys->pos = Tmk_malloc(bytes);
    sys->vel = Tmk_malloc(bytes);
    sys->force = Tmk_malloc(bytes);
    for (int i = 0; i < n; ++i) initial(i, sys->pos[i], sys->vel[i]);
    memset(sys->force, 0, bytes);
    sys->energy = 0;
    Tmk_distribute(&sys, sizeof sys);
    TMK_SCOPE_END();
  }
  Tmk_barrier(0);
  const int P = (int)Tmk_nprocs, me = (int)Tmk_proc_id;
  const int first = block_begin(me, P), last = block_begin(me + 1, P);
  const int reach = last + n / 2; /* our pairs touch molecules [first, reach) modulo n */
  double (*mine)[3] = malloc(bytes);
  for (int step = 0; step < steps; ++step) {
    TMK_SCOPE_BEGIN("forces");
    memset(mine, 0, bytes);
    const double energy = pair_forces(sys->pos, first, last, mine);
    TMK_SCOPE_END();
    TMK_SCOPE_BEGIN("accumulate");
    for (int k = 0; k < P && first < last; ++k) {
      const int b = (me + k) % P, lo = block_begin(b, P), hi = block_begin(b + 1, P);
      if (!overlaps(lo, hi, first, reach) && !overlaps(lo + n, hi + n, first, reach)) continue;
      Tmk_lock_acquire(1 + (unsigned)b);
      for (int i = lo; i < hi; ++i)
        for (int c = 0; c < 3; ++c) sys->force[i][c] += mine[i][c];
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
    if (step + 1 < steps && me == 0) sys->energy = 0; /* the others add again after the barrier */
    Tmk_barrier(2);
  }
  int status = 0;
  if (me == 0) {
    double worst = 0, energy = 0;
    if (check_result) {
      double (*pos)[3] = malloc(bytes), (*vel)[3] = malloc(bytes), (*f)[3] = malloc(bytes);
      for (int i = 0; i < n; ++i) initial(i, pos[i], vel[i]);
      for (int step = 0; step < steps; ++step) {
        memset(f, 0, bytes);
        energy = pair_forces(pos, 0, n, f);
        move(pos, vel, f, 0, n);
      }
      for (int i = 0; i < n; ++i)
        for (int c = 0; c < 3; ++c) {
          double diff = fabs(pos[i][c] - sys->pos[i][c]);
          diff = fmin(diff, box - diff); /* across the periodic boundary */
          worst = fmax(worst, diff / box);
        }
      free(pos);
      free(vel);
      free(f);
    }
    const double energy_error = fabs(sys->energy - energy) / fmax(1.0, fabs(energy));
    const int ok = !check_result || (worst <= 1e-9 && energy_error <= 1e-9);
    printf("water %d molecules, %d steps on %u node(s): potential energy %.6f, %s\n", n, steps, Tmk_nprocs,
           sys->energy,
           !check_result ? "not checked"
           : ok          ? "verified"
                         : "WRONG (positions or energy differ from the sequential run)");
    if (check_result && !ok)
      printf("  sequential energy %.9f, largest position difference %.3g of the box\n", energy, worst);
    status = ok ? 0 : 1;
  }
  free(mine);
  Tmk_exit(status);
}
