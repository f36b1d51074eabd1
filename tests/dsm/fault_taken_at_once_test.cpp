// A write fault a node's process took at once (tmk/'s write guards) is replayed by
// Runtime::fault_taken_at_once. Under the measured time model the process timed it inside its
// computation, as a real run counts it (issue 43, seventh session), so the model charges nothing
// more; under the deterministic model it costs its trap and twin as any write fault. Either way
// the protocol does the same: the twin is made and the write reaches the other node.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "dsm/compute_meter.hpp"
#include "tests/dsm/harness.hpp"

namespace ncp2::dsm {
namespace {

using testing::Harness;
using testing::machine;

// A meter for nodes whose computation another process times: nothing charged at the entries.
class ExternalMeter final : public ComputeMeter {
 public:
  void begin(NodeId /*node*/) override {}
  emu::Duration end_stretch(NodeId /*node*/) override { return emu::Duration{0}; }
  void resume(NodeId /*node*/) override {}
  void finish(NodeId /*node*/) override {}
  std::string set_external(NodeId /*node*/) override { return {}; }
  emu::Duration external_duration(NodeId /*node*/, std::uint64_t /*tsc_ticks*/) override {
    return emu::Duration{0};
  }
};

struct Outcome {
  emu::Duration fault{};    // node 0's replayed write fault, in virtual time
  std::uint64_t twins = 0;  // the protocol's twins over the nodes
  std::int32_t read = 0;    // what node 1 then reads of the word node 0 wrote
  bool was_local = false;
};

Outcome replayed_fault(bool measured) {
  Harness h(machine(emu::MachineKind::TreadMarks, 2));
  ExternalMeter meter;
  if (measured) h.dsm.set_compute_meter(&meter);
  Outcome out;
  const auto result = h.run([&](Process& p) {
    auto a = p.alloc<std::int32_t>("a", 1024);  // one page, homed at node 0
    auto v = p.view(a);
    Runtime& rt = p.runtime();
    p.barrier(0);
    if (p.id() == 0) {
      out.was_local = rt.write_fault_is_local(p.node(), a.region(), 0);
      const emu::TimePoint start = h.kernel.now();
      rt.fault_taken_at_once(p.node(), a.region(), 0);
      out.fault = h.kernel.now() - start;
      v.set(3, 42);  // writable now: no second fault
    }
    p.barrier(1);
    if (p.id() == 1) out.read = v.get(3);
    p.barrier(2);
  });
  EXPECT_EQ(result.status, emu::RunStatus::Completed) << result.diagnosis;
  out.twins = h.total_of([](const auto& s) { return s.twins; });
  return out;
}

TEST(FaultTakenAtOnce, UnderTheMeasuredModelTheModelChargesNothingMore) {
  const Outcome o = replayed_fault(true);
  ASSERT_TRUE(o.was_local);
  EXPECT_EQ(o.fault, emu::Duration{0});
  EXPECT_EQ(o.twins, 1U);
  EXPECT_EQ(o.read, 42);
}

TEST(FaultTakenAtOnce, UnderTheDeterministicModelItCostsAWriteFault) {
  const Outcome o = replayed_fault(false);
  ASSERT_TRUE(o.was_local);
  EXPECT_GE(o.fault, machine(emu::MachineKind::TreadMarks, 2).dsm.fault_trap);
  EXPECT_GT(o.fault, emu::Duration{0});
  EXPECT_EQ(o.twins, 1U);
  EXPECT_EQ(o.read, 42);
}

}  // namespace
}  // namespace ncp2::dsm
