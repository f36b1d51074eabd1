// A real node's program hands an access fault to its agent as it hands a Tmk call (issue 43,
// dsm.fault_handoff): each access fault costs the key more, beyond its trap; a write fault, which
// the program takes at once, costs the same; the key at 0 changes nothing.
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

struct Times {
  double reads_us = 0;   // node 1 reads one word of each of `pages` pages of node 0's
  double writes_us = 0;  // node 0 then writes a word of each of its own pages (write faults)
};

Times faults(const SystemConfig& config, std::size_t pages) {
  Harness h(config);
  Times t;
  const auto result = h.run([&](Process& p) {
    auto data = p.view(p.alloc<std::int32_t>("data", pages * kPageWords));
    p.barrier(0);
    if (p.id() == 1) {
      const emu::TimePoint start = h.kernel.now();
      for (std::size_t k = 0; k < pages; ++k) (void)data.get(k * kPageWords);
      t.reads_us = static_cast<double>(emu::to_ps(h.kernel.now() - start)) / kPsPerUs;
    }
    p.barrier(1);
    if (p.id() == 0) {
      const emu::TimePoint start = h.kernel.now();
      for (std::size_t k = 0; k < pages; ++k) data.set(k * kPageWords + 1, 7);
      t.writes_us = static_cast<double>(emu::to_ps(h.kernel.now() - start)) / kPsPerUs;
    }
    p.barrier(2);
  });
  EXPECT_EQ(result.status, emu::RunStatus::Completed) << result.diagnosis;
  return t;
}

SystemConfig with_handoff(const std::string& handoff) {
  SystemConfig c = machine(emu::MachineKind::TreadMarks, 2);
  apply_override(c, "dsm.fault_handoff=" + handoff);
  return c;
}

TEST(FaultHandoff, EachAccessFaultCostsTheKeyMore) {
  const SystemConfig plain = machine(emu::MachineKind::TreadMarks, 2);
  for (const std::size_t pages : {1U, 6U}) {
    const Times base = faults(plain, pages);
    const Times handed = faults(with_handoff("5us"), pages);
    EXPECT_NEAR(handed.reads_us - base.reads_us, 5.0 * static_cast<double>(pages), 0.01) << pages << " pages";
  }
}

TEST(FaultHandoff, WriteFaultsAndTheKeyAtZeroChangeNothing) {
  const SystemConfig plain = machine(emu::MachineKind::TreadMarks, 2);
  EXPECT_DOUBLE_EQ(faults(with_handoff("5us"), 4).writes_us, faults(plain, 4).writes_us);
  EXPECT_DOUBLE_EQ(faults(with_handoff("0s"), 4).reads_us, faults(plain, 4).reads_us);
}

TEST(FaultHandoff, ANegativeHandoffIsRefused) {
  SystemConfig c = machine(emu::MachineKind::TreadMarks, 2);
  EXPECT_THROW(
      {
        apply_override(c, "dsm.fault_handoff=-1us");
        validate(c);
      },
      emu::ConfigError);
}

}  // namespace
}  // namespace ncp2::dsm
