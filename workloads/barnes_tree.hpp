#pragma once
// The Barnes-Hut octree of the barnes workload (workloads/barnes.cpp): the cell, the operation
// counts, and the algorithms both of its trees run — the private replicated one (barnes.cpp) and
// the one in shared memory (tree=shared, barnes_shared_tree.cpp). Mass centres and the force walk
// are templates over how a cell is read (`cell_at(i)`: a vector element or a DSM view's get), so
// both trees do the same arithmetic in the same order and give bit-identical results.
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "dsm/process.hpp"

namespace ncp2::workloads::barnes {

inline constexpr double kSoftening2 = 0.05 * 0.05;  // Plummer softening, squared (unit sphere, G = 1)
inline constexpr int kMaxDepth = 64;  // bodies closer than 2^-64 would need more: not with seeded doubles

inline constexpr dsm::OpCounts kInsertLevelOps{
    .flops = 3, .int_ops = 6, .loads = 5, .stores = 1, .branches = 4};
inline constexpr dsm::OpCounts kCellOps{
    .flops = 12, .int_ops = 8, .loads = 16, .stores = 5, .branches = 9};  // mass centre
inline constexpr dsm::OpCounts kOpenTestOps{.flops = 9, .int_ops = 2, .loads = 5, .branches = 2};
inline constexpr dsm::OpCounts kInteractionOps{
    .flops = 20, .loads = 4, .branches = 1};  // sqrt and divide counted as several

using Vec = std::array<double, 3>;

struct Counts {
  std::int64_t insert_levels = 0, cells = 0, open_tests = 0, interactions = 0;
};

// A cell with its mass centre; a child is a cell (>= 0), empty (-1) or a body b (encoded -2 - b).
// 128 bytes, so that a shared array of cells never has one straddling two pages (an element's size
// must divide the page size).
struct Cell {
  Vec centre{};
  double half = 0;
  Vec mass_centre{};
  double mass = 0;
  std::array<std::int32_t, 8> child{-1, -1, -1, -1, -1, -1, -1, -1};
  std::int64_t stamp = 0;  // the shared tree's root: 1 + the step it was last reset for
  std::array<std::int64_t, 3> padding{};
};
static_assert(sizeof(Cell) == 128);

inline int octant(const Vec& centre, std::span<const double> pos, std::int32_t b) {
  const auto i = 3 * static_cast<std::size_t>(b);
  return (pos[i] >= centre[0] ? 1 : 0) | (pos[i + 1] >= centre[1] ? 2 : 0) |
         (pos[i + 2] >= centre[2] ? 4 : 0);
}

// The empty root cell: the bounding cube of all bodies, slightly enlarged.
Cell root_cell(std::span<const double> pos);

// The empty sub-cell of `parent` in octant o.
inline Cell sub_cell(const Cell& parent, int o) {
  Cell c;
  c.half = parent.half / 2;
  c.centre = parent.centre;
  for (std::size_t k = 0; k < 3; ++k) c.centre[k] += ((o >> k) & 1) != 0 ? c.half : -c.half;
  return c;
}

// Sets c's mass and mass centre from its children, whose own are already set, summed in octant
// order: the result depends on the tree's shape only, not on the order the bodies were inserted.
template <class CellAt>
void combine(Cell& c, const CellAt& cell_at, std::span<const double> pos) {
  Vec weighted{};
  double mass = 0;
  for (const std::int32_t child : c.child) {
    if (child == -1) continue;
    if (child >= 0) {
      const Cell& sub = cell_at(child);
      for (std::size_t k = 0; k < 3; ++k) weighted[k] += sub.mass * sub.mass_centre[k];
      mass += sub.mass;
    } else {
      const auto i = 3 * static_cast<std::size_t>(-2 - child);
      for (std::size_t k = 0; k < 3; ++k) weighted[k] += pos[i + k];
      mass += 1;  // in units of one body's mass
    }
  }
  c.mass = mass;
  for (std::size_t k = 0; k < 3; ++k) c.mass_centre[k] = weighted[k] / mass;
}

inline void attract(const Vec& x, const Vec& source, double mass, Vec& a, Counts& counts) {
  ++counts.interactions;
  const Vec d{source[0] - x[0], source[1] - x[1], source[2] - x[2]};
  const double r2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2] + kSoftening2;
  const double scale = mass / (r2 * std::sqrt(r2));
  for (std::size_t k = 0; k < 3; ++k) a[k] += scale * d[k];
}

template <class CellAt>
void walk(const CellAt& cell_at, std::int32_t cell, std::span<const double> pos, const Vec& x,
          std::int32_t self, double theta2, double body_mass, Vec& a, Counts& counts) {
  const Cell& here = cell_at(cell);
  for (const std::int32_t child : here.child) {
    if (child == -1) continue;
    if (child < 0) {
      const std::int32_t b = -2 - child;
      if (b == self) continue;
      const auto i = 3 * static_cast<std::size_t>(b);
      attract(x, Vec{pos[i], pos[i + 1], pos[i + 2]}, body_mass, a, counts);
      continue;
    }
    const Cell& c = cell_at(child);
    ++counts.open_tests;
    const Vec d{c.mass_centre[0] - x[0], c.mass_centre[1] - x[1], c.mass_centre[2] - x[2]};
    const double dist2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
    const double size = 2 * c.half;
    if (size * size < theta2 * dist2)
      attract(x, c.mass_centre, c.mass * body_mass, a, counts);  // far enough: the cell as one mass
    else
      walk(cell_at, child, pos, x, self, theta2, body_mass, a, counts);
  }
}

// The acceleration on body b (excluded from its own sum) from the tree whose root is cell 0.
template <class CellAt>
Vec acceleration(const CellAt& cell_at, std::span<const double> pos, std::int32_t b, double theta,
                 double body_mass, Counts& counts) {
  const auto i = 3 * static_cast<std::size_t>(b);
  const Vec x{pos[i], pos[i + 1], pos[i + 2]};
  Vec a{};
  walk(cell_at, 0, pos, x, b, theta * theta, body_mass, a, counts);
  return a;
}

// The octree in shared memory (tree=shared), rebuilt every step:
//   insert: each node inserts its own bodies, locking each cell it changes or has not seen yet
//     (one at a time); new cells come from the node's own part of the shared cell array;
//   barrier;
//   mass centres: node i sums the subtrees under the root's children in octants i, i + nodes, ...;
//   barrier;
//   forces: every node walks the shared tree, reading the cells through the DSM.
class SharedTree {
 public:
  // Collective: the shared cell array for `bodies` bodies on `nodes` nodes.
  void allocate(dsm::Process& p, std::size_t bodies, int nodes);
  // Inserts bodies [first, first + count) of `pos` (this step's positions, a private copy: the
  // locks taken here would invalidate a span) into the tree of step `step`, then the barrier.
  void insert(dsm::Process& p, std::span<const double> pos, std::size_t first, std::size_t count,
              std::size_t step, Counts& counts);
  // This node's subtrees' mass centres, then the barrier.
  void summarize(dsm::Process& p, std::span<const double> pos, Counts& counts) const;
  [[nodiscard]] const dsm::SharedArray<Cell>& cells() const { return cells_; }

 private:
  void insert_body(dsm::Process& p, const dsm::ArrayView<Cell>& cells, std::span<const double> pos,
                   std::int32_t b, const Cell& root, std::span<Cell> known, Counts& counts);
  std::int32_t new_cell(dsm::Process& p, const dsm::ArrayView<Cell>& cells, const Cell& cell);

  dsm::SharedArray<Cell> cells_;
  std::vector<std::size_t> pool_begin_;   // node i allocates cells [pool_begin_[i], pool_begin_[i + 1])
  std::vector<std::size_t> next_;         // per node: its next free cell this step
  std::vector<std::vector<Cell>> known_;  // per node: the cells it has read under their locks this step
};

}  // namespace ncp2::workloads::barnes
