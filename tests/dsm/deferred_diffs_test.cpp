// Deferred diffs (lrc/node_diffs.cpp): an interval's close sizes the diff of each page it wrote,
// in the pass that copies the page as the interval left it, but encodes it only when another node
// asks for it, from the twin and that copy. A request that comes after the writer went on writing
// the page must still get the page as that interval left it.
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tests/dsm/harness.hpp"

namespace ncp2::dsm {
namespace {
using namespace emu::literals;
using testing::Harness;
using testing::machine;

constexpr std::size_t kPage = 4096;

// The bytes node 0 writes into page P in its `round`-th interval writing P: a different subset of
// the bytes each round (words partly changed, so the diffs carry byte masks), never zero.
bool written(int round, std::size_t i) { return (i + static_cast<std::size_t>(round)) % (round + 2) == 0; }
std::uint8_t value(int round, std::size_t i) {
  return static_cast<std::uint8_t>(((i * 7) + static_cast<std::size_t>(round) * 31) | 1U);
}

struct Config {
  emu::MachineKind kind;
  int lazy;
  std::string name() const {
    return std::string(kind == emu::MachineKind::Ncp2 ? "ncp2" : "treadmarks") + (lazy ? " lazy" : "");
  }
};
constexpr std::array kConfigs = {Config{emu::MachineKind::Ncp2, 0}, Config{emu::MachineKind::TreadMarks, 0},
                                 Config{emu::MachineKind::TreadMarks, 1}};

// Round 1's writes: much of the page (a deferred diff), one byte (a diff small enough to be
// encoded at once), or one byte rewritten with the value it has (an empty diff).
enum class Shape { Large, OneByte, Unchanged };
const char* shape_name(Shape s) {
  return s == Shape::Large ? "large" : s == Shape::OneByte ? "one byte" : "unchanged";
}
// The value round 1 writes into byte i, if it writes it.
std::optional<std::uint8_t> round1(Shape s, std::size_t i) {
  if (s == Shape::Large) return written(1, i) ? std::optional(value(1, i)) : std::nullopt;
  if (i != 100) return std::nullopt;
  return s == Shape::OneByte ? value(1, i) : std::uint8_t{0};
}

struct NextWriteOutcome {
  std::vector<std::uint8_t> first_read;   // node 1, knowing of interval k but not k+2
  std::vector<std::uint8_t> second_read;  // node 1, after the next barrier
  std::uint64_t diffs_made_at_close = 0;  // node 0's diffs made when interval k closed
  std::uint64_t diffs_made_by_write = 0;  // node 0's diffs made by its first write in k+2
  bool write_came_first = false;
};

// Node 0 writes P in interval k, Q in k+1, P again in k+2 (its first write there makes P's diff of
// interval k). Node 1, which knows of k but not of k+2, then reads P.
NextWriteOutcome request_after_next_write(Config c, Shape shape) {
  auto cfg = machine(c.kind, 2);
  cfg.dsm.lazy_diffs = c.lazy;
  Harness h(cfg);
  NextWriteOutcome out;
  emu::TimePoint written_at{};
  const auto r = h.run([&](Process& p) {
    auto a = p.alloc<std::uint8_t>("a", 2 * kPage);  // P = page 0, Q = page 1, homed at node 0
    auto v = p.view(a);
    if (p.id() == 1) (void)v.get(0);  // node 1 holds P: it will need node 0's diffs
    p.barrier(0);
    const std::uint64_t before_close = h.dsm.stats(p.node()).diffs_created;
    if (p.id() == 0)
      for (std::size_t i = 0; i < kPage; ++i)
        if (const auto x = round1(shape, i)) v.set(i, *x);  // interval k
    p.barrier(1);
    if (p.id() == 0) out.diffs_made_at_close = h.dsm.stats(p.node()).diffs_created - before_close;
    if (p.id() == 0) v.set(kPage, 5);  // interval k+1: Q only
    p.barrier(2);
    if (p.id() == 0) {  // interval k+2: P again
      const std::uint64_t before = h.dsm.stats(p.node()).diffs_created;
      for (std::size_t i = 0; i < kPage; ++i)
        if (written(2, i)) v.set(i, value(2, i));
      out.diffs_made_by_write = h.dsm.stats(p.node()).diffs_created - before;
      written_at = h.kernel.now();
    } else {
      p.compute(1_ms);  // node 0's writes come first
      out.write_came_first = written_at != emu::TimePoint{} && written_at < h.kernel.now();
      for (std::size_t i = 0; i < kPage; ++i) out.first_read.push_back(v.get(i));
    }
    p.barrier(3);
    if (p.id() == 1)
      for (std::size_t i = 0; i < kPage; ++i) out.second_read.push_back(v.get(i));
  });
  EXPECT_EQ(r.status, emu::RunStatus::Completed) << r.diagnosis;
  return out;
}

// Diff k must hold round 1's bytes, not round 2's; after the next barrier node 1 sees round 2's.
TEST(DeferredDiffs, ARequestAfterThePagesNextWriteGetsItsIntervalsContents) {
  for (const Config c : kConfigs) {
    for (const Shape shape : {Shape::Large, Shape::OneByte, Shape::Unchanged}) {
      const std::string where = c.name() + ", " + shape_name(shape);
      const NextWriteOutcome out = request_after_next_write(c, shape);
      ASSERT_TRUE(out.write_came_first) << where;
      EXPECT_EQ(out.diffs_made_at_close, 1U) << where << ": interval k's diff is made when it closes";
      EXPECT_EQ(out.diffs_made_by_write, 0U) << where << ": the write finds interval k's diff made";
      ASSERT_EQ(out.first_read.size(), kPage) << where;
      ASSERT_EQ(out.second_read.size(), kPage) << where;
      std::size_t wrong_first = 0;
      std::size_t wrong_second = 0;
      for (std::size_t i = 0; i < kPage; ++i) {
        const std::uint8_t after1 = round1(shape, i).value_or(0);
        const std::uint8_t after2 = written(2, i) ? value(2, i) : after1;
        wrong_first += out.first_read[i] != after1 ? 1 : 0;
        wrong_second += out.second_read[i] != after2 ? 1 : 0;
      }
      EXPECT_EQ(wrong_first, 0U) << where << ": bytes not as interval k left them";
      EXPECT_EQ(wrong_second, 0U) << where;
    }
  }
}

// Node 0 writes P in every other interval, six times, so each twin is both the new contents of one
// deferred diff and the old contents of the next. Node 1 reads P only at the end and gets all six
// diffs, in order; with a tiny GC threshold, collections drop deferred diffs (never encoded) too.
TEST(DeferredDiffs, AChainOfDeferredDiffsAppliesInOrder) {
  for (const Config c : kConfigs) {
    for (const int gc_kb : {0, 1}) {
      auto cfg = machine(c.kind, 2);
      cfg.dsm.lazy_diffs = c.lazy;
      if (gc_kb > 0) cfg.dsm.gc_threshold_kb = gc_kb;
      Harness h(cfg);
      std::vector<std::uint8_t> seen;
      std::uint64_t diff_requests = 0;
      const auto r = h.run([&](Process& p) {
        auto a = p.alloc<std::uint8_t>("a", 2 * kPage);
        auto v = p.view(a);
        if (p.id() == 1) (void)v.get(0);
        p.barrier(0);
        for (int round = 1; round <= 6; ++round) {
          if (p.id() == 0)
            for (std::size_t i = 0; i < kPage; ++i)
              if (written(round, i)) v.set(i, value(round, i));
          p.barrier(1);
          if (p.id() == 0) v.set(kPage + static_cast<std::size_t>(round), 1);  // Q in between
          p.barrier(2);
        }
        if (p.id() == 1) {
          for (std::size_t i = 0; i < kPage; ++i) seen.push_back(v.get(i));
          diff_requests = h.dsm.stats(p.node()).diff_requests;
        }
      });
      ASSERT_EQ(r.status, emu::RunStatus::Completed) << r.diagnosis;
      ASSERT_EQ(seen.size(), kPage);
      std::size_t wrong = 0;
      for (std::size_t i = 0; i < kPage; ++i) {
        std::uint8_t expected = 0;
        for (int round = 1; round <= 6; ++round)
          if (written(round, i)) expected = value(round, i);
        wrong += seen[i] != expected ? 1 : 0;
      }
      EXPECT_EQ(wrong, 0U) << c.name() << ", gc " << gc_kb;
      if (gc_kb == 0) {
        EXPECT_GT(diff_requests, 0U) << c.name() << ": the end read fetches node 0's diffs";
      } else {
        EXPECT_GT(h.dsm.stats(emu::node_id(0)).gc_runs, 0U) << c.name();
      }
    }
  }
}

}  // namespace
}  // namespace ncp2::dsm
