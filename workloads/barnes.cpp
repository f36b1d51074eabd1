// barnes: Barnes-Hut gravitational N-body simulation, written from the algorithm (the SPLASH
// Barnes-Hut pattern on TreadMarks). Bodies of equal mass start uniformly in a unit sphere with
// small seeded velocities. Every time step:
//   build tree, two ways (parameter `tree`):
//     replicated (the default): each node reads every body's position (the current buffer) and
//       builds the octree privately — the simplest DSM-friendly variant: no locks on cells, every
//       node's copy identical because it is built from the same positions in the same order;
//     shared (SPLASH's pattern): one octree in shared memory, rebuilt every step: each node inserts
//       its own bodies under cell locks, a barrier, each node sums the mass centres of some of the
//       root's octants, a barrier (barnes_tree.hpp, barnes_shared_tree.cpp);
//   forces: each node computes the acceleration of its own bodies (a contiguous block: the simple
//     partition, not cost zones) by walking the tree with the opening criterion size/distance < theta
//     (tree=shared: reading the shared cells through the DSM);
//   update: each node moves its own bodies into the other position buffer (double buffering: no
//     node overwrites a position another may still read), then one barrier.
// Every body's acceleration is computed by one node from a tree identical to the sequential one, in
// the same order, so the parallel run reproduces the sequential one exactly: the shared tree's shape
// does not depend on the order the nodes insert the bodies, and mass centres sum the children in
// octant order. One barrier per step (three with tree=shared), plus the exit barrier.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <numbers>
#include <span>
#include <vector>

#include <fmt/format.h>

#include "carnival/scope.hpp"
#include "workloads/barnes_tree.hpp"
#include "workloads/registry.hpp"

namespace ncp2::workloads {
namespace {

using barnes::Cell;
using barnes::Counts;
using barnes::kCellOps;
using barnes::kInsertLevelOps;
using barnes::kInteractionOps;
using barnes::kOpenTestOps;
using barnes::kSoftening2;
using barnes::Vec;

constexpr dsm::OpCounts kBodyUpdateOps{.flops = 12, .loads = 9, .stores = 9, .branches = 1};

// The private octree of one step (tree=replicated): every node builds its own copy.
class Octree {
 private:
  [[nodiscard]] auto cell_at() const {
    return [this](std::int32_t i) -> const Cell& { return cells_[static_cast<std::size_t>(i)]; };
  }

 public:
  void build(std::span<const double> pos, Counts& counts) {
    cells_.assign(1, barnes::root_cell(pos));
    for (std::size_t b = 0; b < pos.size() / 3; ++b) insert(pos, static_cast<std::int32_t>(b), counts);
    summarize(0, pos, counts);
  }

  // The acceleration on body b (excluded from its own sum) at position x.
  Vec acceleration(std::span<const double> pos, std::int32_t b, double theta, double mass,
                   Counts& counts) const {
    return barnes::acceleration(cell_at(), pos, b, theta, mass, counts);
  }

 private:
  void insert(std::span<const double> pos, std::int32_t b, Counts& counts) {
    std::int32_t cell = 0;
    for (int depth = 0;; ++depth) {
      ++counts.insert_levels;
      const auto o =
          static_cast<std::size_t>(barnes::octant(cells_[static_cast<std::size_t>(cell)].centre, pos, b));
      const std::int32_t there = cells_[static_cast<std::size_t>(cell)].child[o];
      if (there == -1) {
        cells_[static_cast<std::size_t>(cell)].child[o] = -2 - b;
        return;
      }
      if (there >= 0) {
        cell = there;
        continue;
      }
      if (depth >= barnes::kMaxDepth)
        throw WorkloadError("barnes: two bodies too close to separate in the octree");
      // A body is there: split into a sub-cell holding it, then go on inserting b.
      Cell sub = barnes::sub_cell(cells_[static_cast<std::size_t>(cell)], static_cast<int>(o));
      sub.child[static_cast<std::size_t>(barnes::octant(sub.centre, pos, -2 - there))] = there;
      cells_.push_back(sub);
      cells_[static_cast<std::size_t>(cell)].child[o] = static_cast<std::int32_t>(cells_.size() - 1);
      cell = static_cast<std::int32_t>(cells_.size() - 1);
    }
  }

  void summarize(std::int32_t cell, std::span<const double> pos, Counts& counts) {
    ++counts.cells;
    for (const std::int32_t child : cells_[static_cast<std::size_t>(cell)].child)
      if (child >= 0) summarize(child, pos, counts);
    barnes::combine(cells_[static_cast<std::size_t>(cell)], cell_at(), pos);
  }

  std::vector<Cell> cells_;
};

class Barnes final : public Instance {
 public:
  Barnes(const Params& params, int nodes, std::uint64_t seed)
      : n_(static_cast<std::size_t>(params.integer("bodies"))),
        steps_(static_cast<std::size_t>(params.integer("steps"))),
        theta_(params.real("theta")),
        dt_(params.real("dt")),
        mass_(1.0 / static_cast<double>(params.integer("bodies"))),
        shared_tree_(params.text("tree") == "shared"),
        nodes_(nodes),
        seed_(seed),
        trees_(static_cast<std::size_t>(nodes)) {}

  void run(dsm::Process& p) override {
    allocate(p);
    initialize(p);
    p.barrier(0);  // every body is placed
    for (std::size_t step = 0; step < steps_; ++step) {
      CARNIVAL_SCOPE_KIND(p, "time step", "loop");
      const auto& from = positions_[step % 2];
      if (shared_tree_)
        build_shared_tree(p, from, step);
      else
        build_tree(p, from);
      forces(p, from);
      update(p, from, positions_[(step + 1) % 2]);
      p.barrier(0);  // the new positions are complete
    }
  }

  void verify(dsm::Process& p) override;

 private:
  [[nodiscard]] std::size_t begin(int id) const { return block_begin(n_, nodes_, id); }
  [[nodiscard]] double uniform(std::uint64_t index) const {  // in [-1, 1)
    return static_cast<double>(seeded(seed_, index) >> 11) * 0x1.0p-52 - 1.0;
  }

  // Body b: uniform in the unit sphere (rejection, seeded), small random velocity.
  void initial(std::size_t b, std::span<double> x, std::span<double> v) const {
    for (std::uint64_t attempt = 0;; ++attempt) {
      const std::uint64_t base = (static_cast<std::uint64_t>(b) << 8) + 3 * attempt;
      const Vec c{uniform(base), uniform(base + 1), uniform(base + 2)};
      if (c[0] * c[0] + c[1] * c[1] + c[2] * c[2] <= 1.0 || attempt == 80) {
        std::ranges::copy(c, x.begin());
        break;
      }
    }
    for (std::size_t k = 0; k < 3; ++k) v[k] = 0.1 * uniform((static_cast<std::uint64_t>(b) << 8) + 250 + k);
  }

  void allocate(dsm::Process& p) {  // collective
    positions_[0] = p.alloc<double>("barnes.positions0", 3 * n_);
    positions_[1] = p.alloc<double>("barnes.positions1", 3 * n_);
    velocities_ = p.alloc<double>("barnes.velocities", 3 * n_);
    accelerations_ = p.alloc<double>("barnes.accelerations", 3 * n_);
    if (shared_tree_) tree_.allocate(p, n_, nodes_);
  }

  void initialize(dsm::Process& p) const {
    CARNIVAL_SCOPE_KIND(p, "initialize", "function");
    const std::size_t first = begin(p.id()), count = begin(p.id() + 1) - first;
    const auto x = p.view(positions_[0]).write_span(3 * first, 3 * count);
    const auto v = p.view(velocities_).write_span(3 * first, 3 * count);
    for (std::size_t k = 0; k < count; ++k) initial(first + k, x.subspan(3 * k, 3), v.subspan(3 * k, 3));
    p.charge(dsm::OpCounts{.flops = 20, .int_ops = 60, .stores = 6, .branches = 3} *
             static_cast<double>(count));
  }

  void build_tree(dsm::Process& p, const dsm::SharedArray<double>& from) {
    CARNIVAL_SCOPE_KIND(p, "build tree", "function");
    Counts counts;
    trees_[static_cast<std::size_t>(p.id())].build(p.view(from).read_span(0, 3 * n_), counts);
    p.charge(kInsertLevelOps * static_cast<double>(counts.insert_levels) +
             kCellOps * static_cast<double>(counts.cells));
  }

  // tree=shared: the bodies inserted into the shared tree, a barrier, the mass centres, a barrier.
  void build_shared_tree(dsm::Process& p, const dsm::SharedArray<double>& from, std::size_t step) {
    CARNIVAL_SCOPE_KIND(p, "build tree", "function");
    const auto span = p.view(from).read_span(0, 3 * n_);
    const std::vector<double> pos(span.begin(), span.end());  // a private copy: the locks end the span
    Counts counts;
    tree_.insert(p, pos, begin(p.id()), begin(p.id() + 1) - begin(p.id()), step, counts);
    tree_.summarize(p, pos, counts);
  }

  [[nodiscard]] auto shared_acceleration(dsm::Process& p) const {
    return [cells = p.view(tree_.cells())](std::span<const double> x, std::int32_t b, double theta,
                                           double mass, Counts& c) {
      return barnes::acceleration([&cells](std::int32_t i) { return cells.get(static_cast<std::size_t>(i)); },
                                  x, b, theta, mass, c);
    };
  }

  void forces(dsm::Process& p, const dsm::SharedArray<double>& from) {
    CARNIVAL_SCOPE_KIND(p, "forces", "function");
    const auto pos = p.view(from).read_span(0, 3 * n_);
    if (shared_tree_) return body_loop(p, pos, shared_acceleration(p));
    const Octree& tree = trees_[static_cast<std::size_t>(p.id())];
    body_loop(p, pos,
              [&tree](std::span<const double> x, std::int32_t b, double theta, double mass, Counts& c) {
                return tree.acceleration(x, b, theta, mass, c);
              });
  }

  // Every body of this node's block: its acceleration from `acceleration_of`.
  template <class AccelerationOf>
  void body_loop(dsm::Process& p, std::span<const double> pos, const AccelerationOf& acceleration_of) {
    const std::size_t first = begin(p.id()), count = begin(p.id() + 1) - first;
    const auto acc = p.view(accelerations_).write_span(3 * first, 3 * count);
    constexpr std::size_t kBatch = 64;  // bodies per charge
    for (std::size_t lo = 0; lo < count; lo += kBatch) {
      CARNIVAL_SCOPE_KIND(p, "body loop", "loop");
      Counts counts;
      for (std::size_t k = lo; k < std::min(count, lo + kBatch); ++k) {
        const Vec a = acceleration_of(pos, static_cast<std::int32_t>(first + k), theta_, mass_, counts);
        std::ranges::copy(a, acc.begin() + static_cast<std::ptrdiff_t>(3 * k));
      }
      p.charge(kOpenTestOps * static_cast<double>(counts.open_tests) +
               kInteractionOps * static_cast<double>(counts.interactions));
    }
  }

  void update(dsm::Process& p, const dsm::SharedArray<double>& from,
              const dsm::SharedArray<double>& to) const {
    CARNIVAL_SCOPE_KIND(p, "update", "function");
    const std::size_t first = begin(p.id()), count = begin(p.id() + 1) - first;
    const auto x = p.view(from).read_span(3 * first, 3 * count);
    const auto next = p.view(to).write_span(3 * first, 3 * count);
    const auto v = p.view(velocities_).write_span(3 * first, 3 * count);
    const auto a = p.view(accelerations_).read_span(3 * first, 3 * count);
    for (std::size_t k = 0; k < 3 * count; ++k) {
      v[k] += a[k] * dt_;
      next[k] = x[k] + v[k] * dt_;
    }
    p.charge(kBodyUpdateOps * static_cast<double>(count));
  }

  std::size_t n_;
  std::size_t steps_;
  double theta_;
  double dt_;
  double mass_;
  bool shared_tree_;
  int nodes_;
  std::uint64_t seed_;
  std::vector<Octree> trees_;  // tree=replicated, per node: its private copy of this step's tree
  barnes::SharedTree tree_;    // tree=shared
  std::array<dsm::SharedArray<double>, 2> positions_;
  dsm::SharedArray<double> velocities_, accelerations_;
};

// The Barnes-Hut approximation's own error, checked on the last step against direct summation:
// the root-mean-square of |a_bh - a_direct| / |a_direct| must be at most 0.15 theta² (the error of
// a monopole-only tree grows as theta²; observed about 0.01 at theta 0.5, 0.025 at 0.7 and 0.06 to
// 0.09 at 1), plus rounding.
double approximation_tolerance(double theta) { return 0.15 * theta * theta + 1e-12; }

void Barnes::verify(dsm::Process& p) {
  if (p.id() != 0) return;
  // The same steps sequentially, natively.
  std::vector<double> x(3 * n_), v(3 * n_), a(3 * n_), last_x;
  for (std::size_t b = 0; b < n_; ++b)
    initial(b, std::span(x).subspan(3 * b, 3), std::span(v).subspan(3 * b, 3));
  Octree tree;
  Counts counts;
  for (std::size_t step = 0; step < steps_; ++step) {
    tree.build(x, counts);
    for (std::size_t b = 0; b < n_; ++b) {
      const Vec ab = tree.acceleration(x, static_cast<std::int32_t>(b), theta_, mass_, counts);
      std::ranges::copy(ab, a.begin() + static_cast<std::ptrdiff_t>(3 * b));
    }
    last_x = x;
    for (std::size_t k = 0; k < 3 * n_; ++k) {
      v[k] += a[k] * dt_;
      x[k] += v[k] * dt_;
    }
  }
  const auto shared_x = p.view(positions_[steps_ % 2]).read_span(0, 3 * n_);
  const auto shared_v = p.view(velocities_).read_span(0, 3 * n_);
  const auto shared_a = p.view(accelerations_).read_span(0, 3 * n_);
  for (std::size_t k = 0; k < 3 * n_; ++k)
    if (shared_x[k] != x[k] || shared_v[k] != v[k] || shared_a[k] != a[k])
      return fail(fmt::format("body {} differs from the sequential run: position {} vs {}, velocity {} vs {}",
                              k / 3, shared_x[k], x[k], shared_v[k], v[k]));
  // The approximation against direct summation on the last step's positions.
  double sum2 = 0;
  for (std::size_t b = 0; b < n_; ++b) {
    Vec direct{};
    for (std::size_t o = 0; o < n_; ++o) {
      if (o == b) continue;
      const Vec d{last_x[3 * o] - last_x[3 * b], last_x[3 * o + 1] - last_x[3 * b + 1],
                  last_x[3 * o + 2] - last_x[3 * b + 2]};
      const double r2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2] + kSoftening2;
      const double scale = mass_ / (r2 * std::sqrt(r2));
      for (std::size_t k = 0; k < 3; ++k) direct[k] += scale * d[k];
    }
    double err2 = 0, norm2 = 0;
    for (std::size_t k = 0; k < 3; ++k) {
      err2 += (a[3 * b + k] - direct[k]) * (a[3 * b + k] - direct[k]);
      norm2 += direct[k] * direct[k];
    }
    sum2 += norm2 > 0 ? err2 / norm2 : 0;
  }
  const double rms = std::sqrt(sum2 / static_cast<double>(n_));
  if (!(rms <= approximation_tolerance(theta_)))
    return fail(
        fmt::format("the Barnes-Hut accelerations are {:.3g} (RMS relative) from direct summation, tolerance "
                    "{:.3g} (0.15 theta^2)",
                    rms, approximation_tolerance(theta_)));
  pass(fmt::format(
      "{} bodies, {} steps: positions, velocities and accelerations identical to the sequential run; "
      "accelerations within {:.3g} RMS relative of direct summation (theta {})",
      n_, steps_, rms, theta_));
}

}  // namespace

Workload barnes_workload() {
  Workload w;
  w.name = "barnes";
  w.description =
      "Barnes-Hut N-body: octree rebuilt each step (by every node privately, or tree=shared: in shared "
      "memory under cell locks), forces on a block of bodies, double-buffered positions";
  w.parameters = {
      int_param("bodies", 2048, "bodies of equal mass, uniform in the unit sphere", 2, 1 << 18),
      int_param("steps", 3, "time steps (one barrier each)", 1, 1000),
      real_param("theta", 0.7, "opening criterion: a cell is one mass when size/distance < theta", 0.0, 1.0),
      real_param("dt", 0.01, "time step (G = 1, total mass 1)", 1e-6, 1.0),
      text_param("tree", "replicated",
                 "replicated: every node builds a private octree; shared: one octree in shared memory, "
                 "built by all nodes under cell locks (SPLASH's sharing pattern)",
                 {"replicated", "shared"}),
  };
  w.presets = {
      {"small", {{"bodies", std::int64_t{256}}, {"steps", std::int64_t{2}}}},
      {"paper", {{"bodies", std::int64_t{16384}}, {"steps", std::int64_t{4}}}},
  };
  w.validate = [](const Params& params, int nodes) {
    if (params.integer("bodies") < nodes)
      throw WorkloadError(fmt::format("barnes needs at least one body per node: bodies={} < nodes={}",
                                      params.integer("bodies"), nodes));
  };
  w.make = [](const Params& params, int nodes, std::uint64_t seed) {
    return std::make_unique<Barnes>(params, nodes, seed);
  };
  return w;
}

}  // namespace ncp2::workloads
