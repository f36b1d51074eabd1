// A real node's agent makes each written page's twin and diff when the interval closes (issue 43,
// dsm.close_per_page): the emulated node then spends that much per page its closing interval
// wrote, inside the synchronization that closes it; an interval that wrote nothing costs nothing
// more, and the key at 0 changes nothing.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "tests/dsm/harness.hpp"

namespace ncp2::dsm {
namespace {

using testing::Harness;
using testing::machine;

constexpr double kPsPerUs = 1e6;
constexpr std::size_t kPageWords = 1024;  // 4 KB pages of 32-bit words

// Node 0 writes every word of `pages` pages, then the barrier closing that interval: its time there
// (node 1 waits at it already), µs.
double barrier_after_writes(const SystemConfig& config, std::size_t pages) {
  Harness h(config);
  double barrier_us = 0;
  const auto result = h.run([&](Process& p) {
    auto data = p.view(p.alloc<std::int32_t>("data", 521 * kPageWords));
    p.barrier(0);
    if (p.id() == 0) {
      for (std::size_t i = 0; i < pages * kPageWords; ++i) data.set(i, static_cast<std::int32_t>(i + 1));
      const emu::TimePoint start = h.kernel.now();
      p.barrier(1);
      barrier_us = static_cast<double>(emu::to_ps(h.kernel.now() - start)) / kPsPerUs;
    } else {
      p.barrier(1);
    }
  });
  EXPECT_EQ(result.status, emu::RunStatus::Completed) << result.diagnosis;
  return barrier_us;
}

SystemConfig real_node(const std::string& close_per_page) {
  SystemConfig c = machine(emu::MachineKind::TreadMarks, 2);
  apply_override(c, "dsm.close_per_page=" + close_per_page);
  return c;
}

TEST(CloseCost, EachPageTheClosingIntervalWroteCostsTheKey) {
  const SystemConfig plain = machine(emu::MachineKind::TreadMarks, 2);
  for (const std::size_t pages : {8U, 40U}) {
    const double extra = barrier_after_writes(real_node("2us"), pages) - barrier_after_writes(plain, pages);
    EXPECT_NEAR(extra, 2.0 * static_cast<double>(pages), 0.01) << pages << " pages";
  }
}

TEST(CloseCost, AnIntervalThatWroteNothingCostsNothingMore) {
  EXPECT_DOUBLE_EQ(barrier_after_writes(real_node("2us"), 0),
                   barrier_after_writes(machine(emu::MachineKind::TreadMarks, 2), 0));
}

TEST(CloseCost, ZeroChangesNothingAndANegativeValueIsRefused) {
  EXPECT_DOUBLE_EQ(barrier_after_writes(real_node("0s"), 40),
                   barrier_after_writes(machine(emu::MachineKind::TreadMarks, 2), 40));
  SystemConfig bad = machine(emu::MachineKind::TreadMarks, 2);
  EXPECT_THROW(
      {
        apply_override(bad, "dsm.close_per_page=-1us");
        validate(bad);
      },
      emu::ConfigError);
}

}  // namespace
}  // namespace ncp2::dsm
