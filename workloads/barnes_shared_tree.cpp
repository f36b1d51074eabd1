// The barnes workload's octree in shared memory (tree=shared): SPLASH Barnes-Hut's sharing pattern,
// the tree rebuilt by all nodes together every step (barnes_tree.hpp says how).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include <fmt/format.h>

#include "carnival/scope.hpp"
#include "workloads/barnes_tree.hpp"
#include "workloads/workload.hpp"

namespace ncp2::workloads::barnes {

namespace {

// Cells are locked in hashed groups, as SPLASH-2's Barnes does (its MAXLOCK is 2048): cell c under
// lock c mod kTreeLocks. A node holds one at a time, so two cells of a path sharing a lock is only
// contention, never a deadlock.
constexpr std::uint32_t kTreeLocks = 2048;
std::uint32_t lock_of(std::int32_t cell) { return static_cast<std::uint32_t>(cell) % kTreeLocks; }

// A node's part of the cell array: the tree of n bodies spread evenly in the unit sphere has about
// n / 2 cells (0.48 n to 0.49 n for 256 to 16384 bodies, counted), each made by the node whose
// insertion split a leaf; twice its bodies plus one deepest possible chain is about four times what
// a node makes, and running out is an error.
std::size_t pool_size(std::size_t bodies) { return 2 * bodies + kMaxDepth; }

}  // namespace

Cell root_cell(std::span<const double> pos) {
  const std::size_t n = pos.size() / 3;
  Vec lo{pos[0], pos[1], pos[2]}, hi = lo;
  for (std::size_t b = 0; b < n; ++b)
    for (std::size_t c = 0; c < 3; ++c) {
      lo[c] = std::min(lo[c], pos[3 * b + c]);
      hi[c] = std::max(hi[c], pos[3 * b + c]);
    }
  double half = 0;
  Cell root;
  for (std::size_t c = 0; c < 3; ++c) {
    root.centre[c] = (lo[c] + hi[c]) / 2;
    half = std::max(half, (hi[c] - lo[c]) / 2);
  }
  root.half = half * 1.000001 + 1e-12;
  return root;
}

void SharedTree::allocate(dsm::Process& p, std::size_t bodies, int nodes) {
  pool_begin_.assign(1, 1);  // cell 0 is the root
  for (int id = 0; id < nodes; ++id)
    pool_begin_.push_back(pool_begin_.back() +
                          pool_size(block_begin(bodies, nodes, id + 1) - block_begin(bodies, nodes, id)));
  next_.assign(static_cast<std::size_t>(nodes), 0);
  known_.resize(static_cast<std::size_t>(nodes));
  cells_ = p.alloc<Cell>("barnes.cells", pool_begin_.back());
}

std::int32_t SharedTree::new_cell(dsm::Process& p, const dsm::ArrayView<Cell>& cells, const Cell& cell) {
  const auto id = static_cast<std::size_t>(p.id());
  std::size_t& next = next_[id];
  if (next == pool_begin_[id + 1])
    throw WorkloadError(fmt::format("barnes: node {}'s {} shared cells are all used", p.id(),
                                    pool_begin_[id + 1] - pool_begin_[id]));
  cells.set(next, cell);
  return static_cast<std::int32_t>(next++);
}

void SharedTree::insert(dsm::Process& p, std::span<const double> pos, std::size_t first, std::size_t count,
                        std::size_t step, Counts& counts) {
  CARNIVAL_SCOPE_KIND(p, "insert bodies", "function");
  const auto id = static_cast<std::size_t>(p.id());
  next_[id] = pool_begin_[id];
  // Every node derives the root's cube from the positions; the first to lock the root in a step
  // finds an older stamp and resets it (no barrier needed to publish an empty root).
  Cell root = root_cell(pos);
  root.stamp = static_cast<std::int64_t>(step) + 1;
  const auto cells = p.view(cells_);
  std::vector<Cell>& known = known_[id];
  known.assign(cells_.size(), Cell{});  // nothing seen yet this step
  for (std::size_t k = 0; k < count; ++k)
    insert_body(p, cells, pos, static_cast<std::int32_t>(first + k), root, known, counts);
  p.barrier(0);  // the tree is complete
}

// Down from the root. A link from a cell to a sub-cell, once made, stays for the whole step, so a
// link this node has seen under the cell's lock (kept in its private `known` copy) is followed
// without locking; a cell whose child in b's octant is empty, a body, or not yet seen is locked,
// read and changed under its lock (one lock at a time). This is SPLASH's pattern — the path read
// without locks, the cell changed locked — made safe for lazy release consistency: SPLASH reads the
// shared path itself unlocked, which relies on coherent hardware (here it could see a link before
// the cell it names). The bodies already there decide the shape, which is the same whatever the
// order of insertion (a cell exists exactly where two bodies share its cube).
void SharedTree::insert_body(dsm::Process& p, const dsm::ArrayView<Cell>& cells, std::span<const double> pos,
                             std::int32_t b, const Cell& root, std::span<Cell> known, Counts& counts) {
  std::int32_t cell = 0;
  for (int depth = 0;; ++depth) {
    ++counts.insert_levels;
    p.charge(kInsertLevelOps);  // level by level: some of the work is done holding a lock
    Cell& seen = known[static_cast<std::size_t>(cell)];
    if (seen.stamp == root.stamp) {
      const std::int32_t sub = seen.child[static_cast<std::size_t>(octant(seen.centre, pos, b))];
      if (sub >= 0) {
        cell = sub;
        continue;
      }
    }
    const auto guard = p.lock(lock_of(cell));
    Cell c = cells.get(static_cast<std::size_t>(cell));
    if (cell == 0 && c.stamp != root.stamp) c = root;  // the first insertion of this step
    const auto o = static_cast<std::size_t>(octant(c.centre, pos, b));
    const std::int32_t there = c.child[o];
    if (there == -2 - b) throw WorkloadError("barnes: a body inserted twice");
    if (there == -1) {
      c.child[o] = -2 - b;
    } else if (there < 0) {
      if (depth >= kMaxDepth) throw WorkloadError("barnes: two bodies too close to separate in the octree");
      // A body is there: a new sub-cell holds it, and b goes on down into that cell.
      Cell sub = sub_cell(c, static_cast<int>(o));
      sub.child[static_cast<std::size_t>(octant(sub.centre, pos, -2 - there))] = there;
      c.child[o] = new_cell(p, cells, sub);
    }
    if (there != c.child[o]) cells.set(static_cast<std::size_t>(cell), c);
    seen = c;
    seen.stamp = root.stamp;
    if (there == -1) return;
    cell = c.child[o];
  }
}

// Node i sums the subtrees of the root's children in octants i, i + nodes, ... (children summed in
// octant order: the same mass centres as the sequential tree's, bit for bit). Why not node 0 alone:
// that would make it fetch every cell of the tree before anyone could walk it; split by octant,
// each node reads and writes one or a few eighths of the tree (bodies fill the sphere evenly, so
// 8 nodes get one octant each). Nobody needs the root's own mass centre: the walk starts at its
// children. Then the barrier.
void SharedTree::summarize(dsm::Process& p, std::span<const double> pos, Counts& counts) const {
  CARNIVAL_SCOPE_KIND(p, "mass centres", "function");
  const auto cells = p.view(cells_);
  const auto cell_at = [&cells](std::int32_t i) { return cells.get(static_cast<std::size_t>(i)); };
  const auto sum = [&](const auto& self, std::int32_t cell) -> void {
    ++counts.cells;
    Cell c = cell_at(cell);
    for (const std::int32_t child : c.child)
      if (child >= 0) self(self, child);
    combine(c, cell_at, pos);
    cells.set(static_cast<std::size_t>(cell), c);
  };
  const Cell root = cell_at(0);
  for (auto o = static_cast<std::size_t>(p.id()); o < root.child.size();
       o += static_cast<std::size_t>(p.nprocs()))
    if (root.child[o] >= 0) sum(sum, root.child[o]);
  p.charge(kCellOps * static_cast<double>(counts.cells));
  counts.cells = 0;
  p.barrier(0);  // every mass centre is set
}

}  // namespace ncp2::workloads::barnes
