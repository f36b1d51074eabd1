#pragma once
// Random data-race-free programs for the DSM, and their sequential interpreter. A program is a
// sequence of barrier-separated phases; in each phase every node runs a list of operations:
//   write   a[i] = constant + b[j]   (b[j] readable by this node in this phase)
//   read    a[i]                     (checked against the interpreter, on the spot)
//   add     counter[k] += delta      (inside lock k: lock-protected read-modify-write)
// Data-race freedom by construction: in a phase each element is written by at most one node and
// read only by that node or when nobody writes it; a counter is read only in phases where no node
// adds to it. So every execution order gives the interpreter's result.
#include <array>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "emulator/config.hpp"

namespace ncp2::dsm::testing {

struct Op {
  enum Kind { Write, Read, Add } kind = Read;
  int array = 0;
  std::size_t index = 0;
  std::int64_t constant = 0;
  int src_array = 0;
  std::size_t src_index = 0;
};

struct RandomProgram {
  std::uint64_t seed = 0;
  dsm::SystemConfig config;
  std::vector<std::size_t> sizes;  // arrays of int64; the last one holds the lock-protected counters
  std::vector<std::vector<std::vector<Op>>> phases;  // [phase][node]
  [[nodiscard]] int nodes() const { return config.machine.nodes; }
  [[nodiscard]] int counters() const { return static_cast<int>(sizes.size()) - 1; }
  [[nodiscard]] std::string describe() const {
    std::size_t ops = 0;
    for (const auto& ph : phases)
      for (const auto& node_ops : ph) ops += node_ops.size();
    return fmt::format("seed {}: {} on {} nodes, page {} B, gc at {} KB, {} arrays, {} phases, {} ops", seed,
                       emu::to_string(config.machine.kind), nodes(), config.memory.page_size,
                       config.dsm.gc_threshold_kb, sizes.size(), phases.size(), ops);
  }
};

inline RandomProgram generate_program(std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  auto pick = [&rng](std::uint64_t lo, std::uint64_t hi) { return lo + rng() % (hi - lo + 1); };
  RandomProgram p;
  p.seed = seed;
  p.config = dsm::default_config(rng() % 2 ? emu::MachineKind::Ncp2 : emu::MachineKind::TreadMarks);
  p.config.machine.nodes = static_cast<int>(pick(1, 9));
  static constexpr std::array kPageSizes = {64, 128, 256, 512, 4096};
  p.config.memory.page_size = kPageSizes[pick(0, 4)];
  p.config.dsm.gc_threshold_kb = rng() % 3 == 0 ? 1 : 1024;  // often collect garbage
  const int n = p.nodes();
  const int arrays = static_cast<int>(pick(1, 3));
  for (int a = 0; a < arrays; ++a) p.sizes.push_back(pick(1, 400));
  p.sizes.push_back(pick(1, 4));  // counters
  const int counter_array = arrays;
  const int phases = static_cast<int>(pick(1, 6));
  for (int ph = 0; ph < phases; ++ph) {
    // Who writes what in this phase (-1: nobody), and which counters are being added to.
    std::vector<std::vector<int>> writer(static_cast<std::size_t>(arrays));
    for (int a = 0; a < arrays; ++a) {
      writer[static_cast<std::size_t>(a)].assign(p.sizes[static_cast<std::size_t>(a)], -1);
      for (auto& w : writer[static_cast<std::size_t>(a)])
        if (rng() % 3 == 0) w = static_cast<int>(rng() % static_cast<std::uint64_t>(n));
    }
    std::vector<bool> adding(p.sizes.back(), false);
    for (auto&& adds : adding) adds = rng() % 2 == 0;
    auto readable = [&](int node, int array, std::size_t i) {
      if (array == counter_array) return !adding[i];
      const int w = writer[static_cast<std::size_t>(array)][i];
      return w == -1 || w == node;
    };
    std::vector<std::vector<Op>> per_node(static_cast<std::size_t>(n));
    for (int node = 0; node < n; ++node) {
      auto& ops = per_node[static_cast<std::size_t>(node)];
      // Writes: the elements this node owns in this phase, in a random subset and order.
      for (int a = 0; a < arrays; ++a)
        for (std::size_t i = 0; i < p.sizes[static_cast<std::size_t>(a)]; ++i)
          if (writer[static_cast<std::size_t>(a)][i] == node && rng() % 4 != 0) {
            Op op;
            op.kind = Op::Write;
            op.array = a;
            op.index = i;
            op.constant = static_cast<std::int64_t>(rng() % 1000) - 500;
            // A source it may read: retry a few times, else a constant write (src = itself).
            op.src_array = a;
            op.src_index = i;
            for (int tries = 0; tries < 4; ++tries) {
              const int sa = static_cast<int>(rng() % static_cast<std::uint64_t>(arrays + 1));
              const std::size_t si = rng() % p.sizes[static_cast<std::size_t>(sa)];
              if (readable(node, sa, si)) {
                op.src_array = sa;
                op.src_index = si;
                break;
              }
            }
            ops.push_back(op);
          }
      const int extra = static_cast<int>(pick(0, 8));
      for (int k = 0; k < extra; ++k) {
        Op op;
        const std::size_t c = rng() % p.sizes.back();
        if (adding[c] && rng() % 2 == 0) {
          op.kind = Op::Add;
          op.array = counter_array;
          op.index = c;
          op.constant = static_cast<std::int64_t>(pick(1, 9));
        } else {
          op.kind = Op::Read;
          op.array = static_cast<int>(rng() % static_cast<std::uint64_t>(arrays + 1));
          op.index = rng() % p.sizes[static_cast<std::size_t>(op.array)];
          if (!readable(node, op.array, op.index)) continue;
        }
        ops.insert(ops.begin() + static_cast<std::ptrdiff_t>(rng() % (ops.size() + 1)), op);
      }
      // A write must come after any read of its own element that precedes it in program order;
      // positions are random, which is fine: the interpreter runs the same order.
    }
    p.phases.push_back(std::move(per_node));
  }
  return p;
}

// The sequential result: the final arrays, and the value each read must return ([phase][node]).
struct Expected {
  std::vector<std::vector<std::int64_t>> final_state;
  std::vector<std::vector<std::vector<std::int64_t>>> reads;
};

inline Expected interpret(const RandomProgram& p) {
  Expected e;
  for (auto size : p.sizes) e.final_state.emplace_back(size, 0);
  auto& s = e.final_state;
  for (const auto& phase : p.phases) {
    std::vector<std::vector<std::int64_t>> reads(phase.size());
    for (std::size_t node = 0; node < phase.size(); ++node)
      for (const Op& op : phase[node]) {
        switch (op.kind) {
          case Op::Write:
            s[static_cast<std::size_t>(op.array)][op.index] =
                op.constant + s[static_cast<std::size_t>(op.src_array)][op.src_index];
            break;
          case Op::Read:
            reads[node].push_back(s[static_cast<std::size_t>(op.array)][op.index]);
            break;
          case Op::Add:
            s[static_cast<std::size_t>(op.array)][op.index] += op.constant;
            break;
        }
      }
    e.reads.push_back(std::move(reads));
  }
  return e;
}

}  // namespace ncp2::dsm::testing
