// A real node's program and agent each wait awake dsm.handoff_awake_window for the turn, then
// sleep (issue 43, seventh session; tmk/channel.hpp): a Tmk call or access fault after the agent
// idled that long costs dsm.handoff_wake more, and so does the return from an entry that lasted
// that long; entries closer together, write faults and a window of 0 cost nothing more.
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
  double after_quiet_us = 0;  // node 0 computes 10 ms, then takes lock 1 from node 1 (its manager)
  double back_to_back_us = 0;  // then at once lock 3, also node 1's
  double read_us = 0;          // node 0 computes 10 ms, then reads a page node 1 changed
  double writes_us = 0;        // node 1, 10 ms after a barrier, writes a word of each of 4 pages it holds
};

double us_since(const Harness& h, emu::TimePoint start) {
  return static_cast<double>(emu::to_ps(h.kernel.now() - start)) / kPsPerUs;
}

Times operations(const SystemConfig& config) {
  Harness h(config);
  Times t;
  const auto result = h.run([&](Process& p) {
    auto data = p.view(p.alloc<std::int32_t>("data", 8 * kPageWords));
    p.barrier(0);
    if (p.id() == 1) {
      for (std::size_t k = 4; k < 8; ++k) (void)data.get(k * kPageWords);  // copies to write below
      data.set(2 * kPageWords, 5);                                           // node 0 reads it below
    }
    p.barrier(1);
    if (p.id() == 0) {
      p.compute(emu::Duration{10'000'000'000});  // 10 ms
      emu::TimePoint start = h.kernel.now();
      p.lock_acquire(1);
      t.after_quiet_us = us_since(h, start);
      p.lock_release(1);
      start = h.kernel.now();
      p.lock_acquire(3);
      t.back_to_back_us = us_since(h, start);
      p.lock_release(3);
      p.compute(emu::Duration{10'000'000'000});
      start = h.kernel.now();
      (void)data.get(2 * kPageWords);  // a diff from node 1
      t.read_us = us_since(h, start);
    }
    p.barrier(2);
    if (p.id() == 1) {
      p.compute(emu::Duration{10'000'000'000});
      const emu::TimePoint start = h.kernel.now();
      for (std::size_t k = 4; k < 8; ++k) data.set(k * kPageWords + 1, 7);
      t.writes_us = us_since(h, start);
    }
    p.barrier(3);
  });
  EXPECT_EQ(result.status, emu::RunStatus::Completed) << result.diagnosis;
  return t;
}

SystemConfig real_node(const std::string& wake, const std::string& window) {
  SystemConfig c = machine(emu::MachineKind::TreadMarks, 2);
  apply_override(c, "dsm.handoff_wake=" + wake);
  apply_override(c, "dsm.handoff_awake_window=" + window);
  return c;
}

// Without the wake, the lock takes `d` microseconds; a window between d and the 10 ms of
// computing before it makes only the entry's hand-off wake the agent.
TEST(HandoffWake, ACallAfterTheAgentIdledWakesIt) {
  const Times base = operations(real_node("0s", "0s"));
  ASSERT_GT(base.after_quiet_us, 1.0);
  ASSERT_LT(base.after_quiet_us, 1000.0);
  ASSERT_GT(base.read_us, 1.0);
  ASSERT_LT(base.read_us, 1000.0);
  const Times woken = operations(real_node("5us", "2ms"));
  EXPECT_NEAR(woken.after_quiet_us - base.after_quiet_us, 5.0, 1e-6);
  EXPECT_NEAR(woken.read_us - base.read_us, 5.0, 1e-6);
  // The second lock comes right after the first's release: the agent is still awake.
  EXPECT_NEAR(woken.back_to_back_us, base.back_to_back_us, 1e-6);
}

// A window shorter than the lock's exchange: the program sleeps while it waits, and the turn's
// return wakes it too.
TEST(HandoffWake, TheReturnFromALongEntryWakesTheProgram) {
  const Times base = operations(real_node("0s", "0s"));
  const std::string window = std::to_string(base.after_quiet_us / 2) + "us";
  const Times woken = operations(real_node("5us", window));
  EXPECT_NEAR(woken.after_quiet_us - base.after_quiet_us, 10.0, 1e-6);
  EXPECT_NEAR(woken.back_to_back_us - base.back_to_back_us, 5.0, 1e-6) << "only the return wakes";
}

TEST(HandoffWake, WriteFaultsAndAWindowOfZeroCostNothingMore) {
  const Times base = operations(real_node("0s", "0s"));
  EXPECT_DOUBLE_EQ(operations(real_node("5us", "2ms")).writes_us, base.writes_us);
  const Times never_asleep = operations(real_node("5us", "0s"));
  EXPECT_DOUBLE_EQ(never_asleep.after_quiet_us, base.after_quiet_us);
  EXPECT_DOUBLE_EQ(never_asleep.read_us, base.read_us);
}

TEST(HandoffWake, NegativeValuesAreRefused) {
  for (const char* key : {"dsm.handoff_wake=-1us", "dsm.handoff_awake_window=-1us"}) {
    SystemConfig c = machine(emu::MachineKind::TreadMarks, 2);
    EXPECT_THROW(
        {
          apply_override(c, key);
          validate(c);
        },
        emu::ConfigError)
        << key;
  }
}

}  // namespace
}  // namespace ncp2::dsm
