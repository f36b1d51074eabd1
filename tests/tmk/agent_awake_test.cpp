// How long a node's waiting side stays awake for its program's next request (tmk/host/node_process.hpp):
// a real agent with a core of its own stays awake 10 ms, so a program that computed a while hands its
// next call to an agent still awake (issue 43, sixth session); with shared cores, and in the
// emulator, the 50 us of issue 41.
#include <gtest/gtest.h>

#include "tmk/host/node_process.hpp"

namespace ncp2::tmk {
namespace {

TEST(AgentAwake, AnAgentWithACoreOfItsOwnStaysAwakeLonger) {
  EXPECT_EQ(agent_awake_ns(1), 10'000'000);
  EXPECT_GT(agent_awake_ns(1), 100 * LaunchSpec::kDefaultAwakeNs);
}

TEST(AgentAwake, SharedCoresAndTheEmulatorKeepTheShortWindow) {
  for (const int cpus : {2, 4, 64}) EXPECT_EQ(agent_awake_ns(cpus), LaunchSpec::kDefaultAwakeNs) << cpus;
  EXPECT_EQ(LaunchSpec{}.awake_ns, 50'000);
}

}  // namespace
}  // namespace ncp2::tmk
