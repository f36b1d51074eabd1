// water: n-squared molecular dynamics of flexible water, the pattern of the
// SPLASH Water-Nsquared program run on TreadMarks, written from the algorithm with a simplified but
// physical model: three sites per molecule (O, H, H) with SPC charges, Lennard-Jones between
// oxygens, Coulomb between all sites of two molecules whose oxygens are closer than the cutoff
// (half the periodic box, minimum image), harmonic O-H bonds and H-O-H angle inside a molecule.
// Units: Å, ps, amu (energies in amu Å²/ps²). Integration: symplectic Euler (kick, then drift).
//
// Each node owns a contiguous block of molecules. Every time step:
//   intra-molecular forces: each node sets the forces of its own molecules;   barrier
//   inter-molecular forces: each node computes the pairs (i, i+1..i+n/2 mod n) of its molecules
//     into a private array, then adds each touched molecule's contribution to the shared forces
//     under that molecule's lock;                                             barrier
//   update: each node moves its own molecules, then adds its kinetic and potential energy to the
//     step's shared sums under the energy lock.
// The next step's intra phase touches only the node's own molecules, so the update needs no barrier
// after it: 2 barriers per step, plus the exit barrier.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <numbers>
#include <span>
#include <vector>

#include <fmt/format.h>

#include "carnival/scope.hpp"
#include "workloads/registry.hpp"

namespace ncp2::workloads {
namespace {

// The model (SPC-like water; kcal/mol converted to amu Å²/ps² by 418.4).
constexpr double kKcal = 418.4;
constexpr double kCoulomb = 332.0637 * kKcal;  // e² -> energy x Å
constexpr double kSigma = 3.166;               // Å, O-O Lennard-Jones
constexpr double kEpsilon = 0.1554 * kKcal;
constexpr double kBondK = 450.0 * kKcal;  // per Å²
constexpr double kBondLength = 1.0;       // Å
constexpr double kAngleK = 55.0 * kKcal;  // per rad²
constexpr double kAngle = 109.47 * std::numbers::pi / 180.0;
constexpr double kDensity = 0.0334;  // molecules per Å³ (liquid water)
constexpr double kThermal = 2494.3;  // kT at 300 K, amu Å²/ps²
constexpr std::array<double, 3> kCharge = {-0.82, 0.41, 0.41};
constexpr std::array<double, 3> kMass = {15.9994, 1.008, 1.008};
constexpr std::size_t kSites = 3;
constexpr std::size_t kWords = 9;  // doubles per molecule: 3 sites x (x, y, z)

constexpr std::uint32_t kEnergyLock = 0;
constexpr std::uint32_t kFirstMoleculeLock = 1;  // molecule i: lock 1 + i

// Operation counts (per molecule or per pair).
constexpr dsm::OpCounts kIntraOps{.flops = 140, .loads = 18, .stores = 9, .branches = 2};
constexpr dsm::OpCounts kPairTestOps{.flops = 14, .loads = 6, .branches = 4};  // O-O distance, cutoff
constexpr dsm::OpCounts kPairOps{.flops = 9 * 34 + 30, .loads = 9 * 6 + 6, .stores = 36, .branches = 9};
constexpr dsm::OpCounts kAddOps{.flops = 9, .loads = 18, .stores = 9, .branches = 1};  // add a contribution
constexpr dsm::OpCounts kUpdateOps{.flops = 3 * 12, .loads = 3 * 9, .stores = 3 * 6, .branches = 4};

using Molecule = std::array<double, kWords>;

struct Box {
  double side = 0;
  double cutoff2 = 0;  // (side / 2)²
};

// Sets `force` to the intra-molecular forces of molecule `x`; returns its potential energy.
double intra_forces(std::span<const double> x, std::span<double> force) {
  std::array<double, 3> u{}, v{};
  for (std::size_t c = 0; c < 3; ++c) {
    u[c] = x[3 + c] - x[c];
    v[c] = x[6 + c] - x[c];
  }
  const double ru = std::sqrt(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]);
  const double rv = std::sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
  double energy =
      0.5 * kBondK * ((ru - kBondLength) * (ru - kBondLength) + (rv - kBondLength) * (rv - kBondLength));
  const double cos_angle = std::clamp((u[0] * v[0] + u[1] * v[1] + u[2] * v[2]) / (ru * rv), -1.0, 1.0);
  const double angle = std::acos(cos_angle);
  energy += 0.5 * kAngleK * (angle - kAngle) * (angle - kAngle);
  const double sin_angle = std::max(std::sqrt(1.0 - cos_angle * cos_angle), 1e-12);
  const double angle_scale = kAngleK * (angle - kAngle) / sin_angle;  // -dU/dθ · (-1/sinθ)
  for (std::size_t c = 0; c < 3; ++c) {
    // Bonds: -k (r - r0) r̂ on each H. Angle: k(θ-θ0)/sinθ · ∂cosθ/∂u on H1, likewise on H2.
    const double h1 = -kBondK * (ru - kBondLength) * u[c] / ru +
                      angle_scale * (v[c] / (ru * rv) - cos_angle * u[c] / (ru * ru));
    const double h2 = -kBondK * (rv - kBondLength) * v[c] / rv +
                      angle_scale * (u[c] / (ru * rv) - cos_angle * v[c] / (rv * rv));
    force[3 + c] = h1;
    force[6 + c] = h2;
    force[c] = -(h1 + h2);
  }
  return energy;
}

// Adds the forces between molecules a and b (minimum image; nothing beyond the cutoff) to fa and
// fb; returns their potential energy, and whether they interact.
bool pair_forces(const Box& box, std::span<const double> a, std::span<const double> b, std::span<double> fa,
                 std::span<double> fb, double& energy) {
  std::array<double, 3> shift{}, oo{};
  for (std::size_t c = 0; c < 3; ++c) {
    const double d = b[c] - a[c];
    shift[c] = -box.side * std::round(d / box.side);
    oo[c] = d + shift[c];
  }
  const double r2 = oo[0] * oo[0] + oo[1] * oo[1] + oo[2] * oo[2];
  if (r2 >= box.cutoff2) return false;
  // Lennard-Jones between the oxygens.
  const double s2 = kSigma * kSigma / r2;
  const double s6 = s2 * s2 * s2;
  energy += 4.0 * kEpsilon * (s6 * s6 - s6);
  const double lj = 24.0 * kEpsilon * (2.0 * s6 * s6 - s6) / r2;
  for (std::size_t c = 0; c < 3; ++c) {
    fb[c] += lj * oo[c];
    fa[c] -= lj * oo[c];
  }
  // Coulomb between every pair of sites.
  for (std::size_t s = 0; s < kSites; ++s)
    for (std::size_t t = 0; t < kSites; ++t) {
      std::array<double, 3> d{};
      for (std::size_t c = 0; c < 3; ++c) d[c] = b[3 * t + c] - a[3 * s + c] + shift[c];
      const double q2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
      const double r = std::sqrt(q2);
      const double qq = kCoulomb * kCharge[s] * kCharge[t];
      energy += qq / r;
      const double scale = qq / (q2 * r);
      for (std::size_t c = 0; c < 3; ++c) {
        fb[3 * t + c] += scale * d[c];
        fa[3 * s + c] -= scale * d[c];
      }
    }
  return true;
}

// Kick and drift of one molecule, wrapped into the box by its oxygen; returns its kinetic energy.
double update_molecule(const Box& box, double dt, std::span<double> x, std::span<double> v,
                       std::span<const double> f) {
  double kinetic = 0;
  for (std::size_t s = 0; s < kSites; ++s)
    for (std::size_t c = 0; c < 3; ++c) {
      const std::size_t k = 3 * s + c;
      v[k] += f[k] / kMass[s] * dt;
      x[k] += v[k] * dt;
      kinetic += 0.5 * kMass[s] * v[k] * v[k];
    }
  for (std::size_t c = 0; c < 3; ++c) {
    const double wrap = -box.side * std::floor(x[c] / box.side);
    if (wrap != 0)
      for (std::size_t s = 0; s < kSites; ++s) x[3 * s + c] += wrap;
  }
  return kinetic;
}

// The partners of molecule i: i+1 .. i+half (mod n); with n even, the opposite molecule (offset
// n/2) is counted by the lower of the two only, so every pair is computed exactly once.
std::size_t partners(std::size_t i, std::size_t n) {
  if (n < 2) return 0;
  const std::size_t half = n / 2;
  return (n % 2 == 0 && i >= half) ? half - 1 : half;
}

class Water final : public Instance {
 public:
  Water(const Params& params, int nodes, std::uint64_t seed)
      : n_(static_cast<std::size_t>(params.integer("molecules"))),
        steps_(static_cast<std::size_t>(params.integer("steps"))),
        dt_(params.real("dt_fs") * 1e-3),
        nodes_(nodes),
        seed_(seed),
        private_forces_(static_cast<std::size_t>(nodes)),
        private_energy_(static_cast<std::size_t>(nodes), 0.0) {
    box_.side = std::cbrt(static_cast<double>(n_) / kDensity);
    box_.cutoff2 = box_.side * box_.side / 4.0;
  }

  void run(dsm::Process& p) override {
    allocate(p);
    initialize(p);
    for (std::size_t step = 0; step < steps_; ++step) {
      CARNIVAL_SCOPE_KIND(p, "time step", "loop");
      intra(p);
      p.barrier(0);  // every molecule's force is reset before others add to it
      inter(p);
      p.barrier(1);  // every contribution is in before the molecules move
      update(p, step);
    }
  }

  void verify(dsm::Process& p) override;

 private:
  [[nodiscard]] std::size_t begin(int id) const { return block_begin(n_, nodes_, id); }
  [[nodiscard]] double uniform(std::uint64_t index) const {  // in [-1, 1)
    return static_cast<double>(seeded(seed_, index) >> 11) * 0x1.0p-52 - 1.0;
  }

  // Molecule i's initial positions and velocities: its oxygen near a site of a cubic lattice, its
  // hydrogens at the equilibrium geometry in a seeded orientation, thermal velocities.
  void initial(std::size_t i, std::span<double> x, std::span<double> v) const {
    const auto per_side = static_cast<std::size_t>(std::ceil(std::cbrt(static_cast<double>(n_)) - 1e-9));
    const double spacing = box_.side / static_cast<double>(per_side);
    const std::array<std::size_t, 3> cell = {i % per_side, i / per_side % per_side,
                                             i / (per_side * per_side)};
    const std::uint64_t base = 32 * i;
    for (std::size_t c = 0; c < 3; ++c)
      x[c] = (static_cast<double>(cell[c]) + 0.5) * spacing + 0.1 * uniform(base + c);
    // An orthonormal pair (e1, e2) from two seeded vectors.
    std::array<double, 3> e1{}, e2{};
    for (std::size_t c = 0; c < 3; ++c) {
      e1[c] = uniform(base + 3 + c);
      e2[c] = uniform(base + 6 + c);
    }
    auto normalize = [](std::array<double, 3>& e) {
      const double r = std::sqrt(e[0] * e[0] + e[1] * e[1] + e[2] * e[2]);
      for (double& w : e) w /= r;
    };
    normalize(e1);
    const double along = e1[0] * e2[0] + e1[1] * e2[1] + e1[2] * e2[2];
    for (std::size_t c = 0; c < 3; ++c) e2[c] -= along * e1[c];
    normalize(e2);
    for (std::size_t c = 0; c < 3; ++c) {
      const double a = kBondLength * std::cos(kAngle / 2), b = kBondLength * std::sin(kAngle / 2);
      x[3 + c] = x[c] + a * e1[c] + b * e2[c];
      x[6 + c] = x[c] + a * e1[c] - b * e2[c];
    }
    for (std::size_t s = 0; s < kSites; ++s)
      for (std::size_t c = 0; c < 3; ++c)
        v[3 * s + c] = std::sqrt(3.0 * kThermal / kMass[s]) * uniform(base + 9 + 3 * s + c);
  }

  void allocate(dsm::Process& p) {  // collective
    positions_ = p.alloc<double>("water.positions", kWords * n_);
    velocities_ = p.alloc<double>("water.velocities", kWords * n_);
    forces_ = p.alloc<double>("water.forces", kWords * n_);
    energy_ = p.alloc<double>("water.energy", 2 * steps_);  // per step: kinetic, potential
  }

  // Each node places its own molecules.
  void initialize(dsm::Process& p) const {
    CARNIVAL_SCOPE_KIND(p, "initialize", "function");
    const std::size_t first = begin(p.id()), count = begin(p.id() + 1) - first;
    const auto x = p.view(positions_).write_span(kWords * first, kWords * count);
    const auto v = p.view(velocities_).write_span(kWords * first, kWords * count);
    for (std::size_t k = 0; k < count; ++k)
      initial(first + k, x.subspan(kWords * k, kWords), v.subspan(kWords * k, kWords));
    p.charge(dsm::OpCounts{.flops = 120, .int_ops = 40, .stores = 18, .branches = 6} *
             static_cast<double>(count));
  }

  void intra(dsm::Process& p) {
    CARNIVAL_SCOPE_KIND(p, "intra-molecular forces", "function");
    const std::size_t first = begin(p.id()), count = begin(p.id() + 1) - first;
    const auto x = p.view(positions_).read_span(kWords * first, kWords * count);
    const auto f = p.view(forces_).write_span(kWords * first, kWords * count);
    double energy = 0;
    for (std::size_t k = 0; k < count; ++k)
      energy += intra_forces(x.subspan(kWords * k, kWords), f.subspan(kWords * k, kWords));
    private_energy_[static_cast<std::size_t>(p.id())] = energy;
    p.charge(kIntraOps * static_cast<double>(count));
  }

  // This node's pairs into a private array, then each touched molecule's sum into the shared
  // forces under its lock.
  void inter(dsm::Process& p) {
    CARNIVAL_SCOPE_KIND(p, "inter-molecular forces", "function");
    const auto me = static_cast<std::size_t>(p.id());
    const std::size_t first = begin(p.id()), last = begin(p.id() + 1);
    std::vector<double>& local = private_forces_[me];
    local.assign(kWords * n_, 0.0);
    const auto positions = p.view(positions_);
    double energy = 0;
    {
      CARNIVAL_SCOPE_KIND(p, "pair loop", "loop");
      for (std::size_t i = first; i < last; ++i) {
        const auto a = positions.read_span(kWords * i, kWords);
        const std::size_t count = partners(i, n_);
        std::size_t interacting = 0;
        for (std::size_t k = 1; k <= count; ++k) {
          const std::size_t j = (i + k) % n_;
          const auto b = positions.read_span(kWords * j, kWords);
          interacting += pair_forces(box_, a, b, std::span(local).subspan(kWords * i, kWords),
                                     std::span(local).subspan(kWords * j, kWords), energy)
                             ? 1
                             : 0;
        }
        p.charge(kPairTestOps * static_cast<double>(count) + kPairOps * static_cast<double>(interacting));
      }
    }
    private_energy_[me] += energy;
    // The touched molecules are first .. last-1+n/2 (mod n): add them in that order, so the nodes
    // start on different locks.
    const std::size_t touched = last == first ? 0 : std::min(n_, last - first + partners(first, n_));
    const auto forces = p.view(forces_);
    for (std::size_t k = 0; k < touched; ++k) {
      CARNIVAL_SCOPE_KIND(p, "add forces", "loop");
      const std::size_t j = (first + k) % n_;
      auto guard = p.lock(kFirstMoleculeLock + static_cast<std::uint32_t>(j));
      const auto f = forces.write_span(kWords * j, kWords);
      for (std::size_t w = 0; w < kWords; ++w) f[w] += local[kWords * j + w];
      p.charge(kAddOps);
    }
  }

  // Moves this node's molecules, then adds its energies to the step's sums under the energy lock.
  void update(dsm::Process& p, std::size_t step) {
    CARNIVAL_SCOPE_KIND(p, "update", "function");
    const std::size_t first = begin(p.id()), count = begin(p.id() + 1) - first;
    const auto x = p.view(positions_).write_span(kWords * first, kWords * count);
    const auto v = p.view(velocities_).write_span(kWords * first, kWords * count);
    const auto f = p.view(forces_).read_span(kWords * first, kWords * count);
    double kinetic = 0;
    for (std::size_t k = 0; k < count; ++k)
      kinetic += update_molecule(box_, dt_, x.subspan(kWords * k, kWords), v.subspan(kWords * k, kWords),
                                 f.subspan(kWords * k, kWords));
    p.charge(kUpdateOps * static_cast<double>(count));
    CARNIVAL_SCOPE_KIND(p, "energy reduction", "block");
    auto guard = p.lock(kEnergyLock);
    const auto e = p.view(energy_).write_span(2 * step, 2);
    e[0] += kinetic;
    e[1] += private_energy_[static_cast<std::size_t>(p.id())];
    p.charge(kAddOps);
  }

  struct State {
    std::vector<double> x, v;
    std::vector<double> kinetic, potential;  // per step
  };
  [[nodiscard]] State sequential() const;

  std::size_t n_;
  std::size_t steps_;
  double dt_;  // ps
  int nodes_;
  std::uint64_t seed_;
  Box box_;
  std::vector<std::vector<double>> private_forces_;  // per node: its contributions of one step
  std::vector<double> private_energy_;               // per node: its potential energy of one step
  dsm::SharedArray<double> positions_, velocities_, forces_, energy_;
};

Water::State Water::sequential() const {
  State s;
  s.x.resize(kWords * n_);
  s.v.resize(kWords * n_);
  std::vector<double> f(kWords * n_);
  for (std::size_t i = 0; i < n_; ++i)
    initial(i, std::span(s.x).subspan(kWords * i, kWords), std::span(s.v).subspan(kWords * i, kWords));
  for (std::size_t step = 0; step < steps_; ++step) {
    double potential = 0;
    for (std::size_t i = 0; i < n_; ++i)
      potential +=
          intra_forces(std::span(s.x).subspan(kWords * i, kWords), std::span(f).subspan(kWords * i, kWords));
    for (std::size_t i = 0; i < n_; ++i)
      for (std::size_t k = 1; k <= partners(i, n_); ++k) {
        const std::size_t j = (i + k) % n_;
        pair_forces(box_, std::span(s.x).subspan(kWords * i, kWords),
                    std::span(s.x).subspan(kWords * j, kWords), std::span(f).subspan(kWords * i, kWords),
                    std::span(f).subspan(kWords * j, kWords), potential);
      }
    double kinetic = 0;
    for (std::size_t i = 0; i < n_; ++i)
      kinetic += update_molecule(box_, dt_, std::span(s.x).subspan(kWords * i, kWords),
                                 std::span(s.v).subspan(kWords * i, kWords),
                                 std::span(f).subspan(kWords * i, kWords));
    s.kinetic.push_back(kinetic);
    s.potential.push_back(potential);
  }
  return s;
}

// Tolerances: the shared forces are sums whose order depends on who takes each molecule's lock
// first, so results differ from the sequential run by rounding only; a few steps amplify that
// little. Positions within 1e-9 Å (the box is ~10-20 Å), velocities within 1e-6 Å/ps (~10 Å/ps),
// energies within 1e-9 relative.
constexpr double kPositionTolerance = 1e-9;
constexpr double kVelocityTolerance = 1e-6;
constexpr double kEnergyTolerance = 1e-9;

void Water::verify(dsm::Process& p) {
  if (p.id() != 0) return;
  const State expected = sequential();
  const auto x = p.view(positions_).read_span(0, kWords * n_);
  const auto v = p.view(velocities_).read_span(0, kWords * n_);
  const auto e = p.view(energy_).read_span(0, 2 * steps_);
  double worst_x = 0, worst_v = 0, worst_e = 0;
  for (std::size_t k = 0; k < kWords * n_; ++k) {
    worst_x = std::max(worst_x, std::abs(x[k] - expected.x[k]));
    worst_v = std::max(worst_v, std::abs(v[k] - expected.v[k]));
  }
  for (std::size_t step = 0; step < steps_; ++step) {
    worst_e =
        std::max(worst_e, std::abs(e[2 * step] - expected.kinetic[step]) / std::abs(expected.kinetic[step]));
    worst_e = std::max(
        worst_e, std::abs(e[2 * step + 1] - expected.potential[step]) / std::abs(expected.potential[step]));
  }
  if (!(worst_x <= kPositionTolerance) || !(worst_v <= kVelocityTolerance) || !(worst_e <= kEnergyTolerance))
    return fail(
        fmt::format("differs from the sequential run: positions by {:.3g} Å (tolerance {:.0g}), velocities "
                    "by {:.3g} Å/ps ({:.0g}), energies by {:.3g} relative ({:.0g})",
                    worst_x, kPositionTolerance, worst_v, kVelocityTolerance, worst_e, kEnergyTolerance));
  pass(fmt::format(
      "{} molecules, {} steps: final energy {:.6g} (kinetic {:.6g}); positions within {:.2g} Å, "
      "velocities within {:.2g} Å/ps, energies within {:.2g} relative of the sequential run",
      n_, steps_, e[2 * steps_ - 2] + e[2 * steps_ - 1], e[2 * steps_ - 2], worst_x, worst_v, worst_e));
}

}  // namespace

Workload water_workload() {
  Workload w;
  w.name = "water";
  w.description =
      "n-squared molecular dynamics of water: per-molecule locks on force updates, barriers between phases, "
      "energies reduced under a lock";
  w.parameters = {
      int_param("molecules", 64, "water molecules in a periodic box at liquid density", 1, 4096),
      int_param("steps", 3, "time steps (2 barriers each)", 1, 1000),
      real_param("dt_fs", 0.5, "time step in femtoseconds", 0.01, 2.0),
  };
  w.presets = {
      {"small", {{"molecules", std::int64_t{64}}, {"steps", std::int64_t{2}}}},
      {"paper", {{"molecules", std::int64_t{288}}, {"steps", std::int64_t{5}}}},
  };
  w.validate = [](const Params& params, int nodes) {
    if (params.integer("molecules") < nodes)
      throw WorkloadError(fmt::format("water needs at least one molecule per node: molecules={} < nodes={}",
                                      params.integer("molecules"), nodes));
  };
  w.make = [](const Params& params, int nodes, std::uint64_t seed) {
    return std::make_unique<Water>(params, nodes, seed);
  };
  return w;
}

}  // namespace ncp2::workloads
