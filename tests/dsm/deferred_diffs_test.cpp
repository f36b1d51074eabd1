// Deferred diffs (twins_and_diffs.cpp): a page's first write in an interval sizes and charges the
// diff of the interval that last wrote it, but encodes it only when another node asks for it,
// from the old twin and the new one. A request that comes after the writer went on writing the
// page must still get the page as that interval left it.
#include <array>
#include <cstdint>
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

// Node 0 writes P in interval k, Q in k+1, P again in k+2 (its first write there makes P's diff of
// interval k). Node 1, which knows of k but not of k+2, then reads P: it gets diff k, which must
// hold round 1's bytes, not round 2's. After the next barrier it sees round 2's.
TEST(DeferredDiffs, ARequestAfterThePagesNextWriteGetsItsIntervalsContents) {
  for (const Config c : kConfigs) {
    auto cfg = machine(c.kind, 2);
    cfg.dsm.lazy_diffs = c.lazy;
    Harness h(cfg);
    std::vector<std::uint8_t> first_read;
    std::vector<std::uint8_t> second_read;
    std::uint64_t diffs_before = 0;
    std::uint64_t diffs_after_write = 0;
    emu::TimePoint written_at{};
    emu::TimePoint read_at{};
    const auto r = h.run([&](Process& p) {
      auto a = p.alloc<std::uint8_t>("a", 2 * kPage);  // P = page 0, Q = page 1, homed at node 0
      auto v = p.view(a);
      if (p.id() == 1) (void)v.get(0);  // node 1 holds P: it will need node 0's diffs
      p.barrier(0);
      if (p.id() == 0)
        for (std::size_t i = 0; i < kPage; ++i)
          if (written(1, i)) v.set(i, value(1, i));  // interval k
      p.barrier(1);
      if (p.id() == 0) v.set(kPage, 5);  // interval k+1: Q only
      p.barrier(2);
      if (p.id() == 0) {  // interval k+2: P again
        diffs_before = h.dsm.stats(p.node()).diffs_created;
        for (std::size_t i = 0; i < kPage; ++i)
          if (written(2, i)) v.set(i, value(2, i));
        diffs_after_write = h.dsm.stats(p.node()).diffs_created;
        written_at = h.kernel.now();
      } else {
        p.compute(1_ms);  // node 0's writes come first
        read_at = h.kernel.now();
        for (std::size_t i = 0; i < kPage; ++i) first_read.push_back(v.get(i));
      }
      p.barrier(3);
      if (p.id() == 1)
        for (std::size_t i = 0; i < kPage; ++i) second_read.push_back(v.get(i));
    });
    ASSERT_EQ(r.status, emu::RunStatus::Completed) << r.diagnosis;
    ASSERT_LT(written_at, read_at) << c.name();
    EXPECT_EQ(diffs_after_write, diffs_before + 1) << c.name() << ": interval k's diff is made at the write";
    ASSERT_EQ(first_read.size(), kPage);
    ASSERT_EQ(second_read.size(), kPage);
    std::size_t wrong_first = 0;
    std::size_t wrong_second = 0;
    for (std::size_t i = 0; i < kPage; ++i) {
      const std::uint8_t round1 = written(1, i) ? value(1, i) : 0;
      const std::uint8_t round2 = written(2, i) ? value(2, i) : round1;
      wrong_first += first_read[i] != round1 ? 1 : 0;
      wrong_second += second_read[i] != round2 ? 1 : 0;
    }
    EXPECT_EQ(wrong_first, 0U) << c.name() << ": bytes not as interval k left them";
    EXPECT_EQ(wrong_second, 0U) << c.name();
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
