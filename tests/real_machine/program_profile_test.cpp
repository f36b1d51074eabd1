// Where a real run puts a request's time (real_machine/program_profile.hpp): a wait starts when
// its request is sent, as an emulated node's does after its protocol entry, so the hand-off to the
// agent and its work before sending (closing the interval at a barrier) are Extra on both machines
// (issue 43).
#include "real_machine/program_profile.hpp"

#include <gtest/gtest.h>

#include <memory>
#include <string>

namespace ncp2::real {
namespace {

using carnival::Category;
using carnival::WaitPart;

double part(const MeasuredWait& w, WaitPart p) { return w.parts[static_cast<std::size_t>(p)]; }

double profiled(const NodeRecord& r, Category c, const std::string& operation) {
  double sum = 0;
  for (const auto& [key, value] : r.profile)
    if (std::get<1>(key) == c && std::get<2>(key) == operation) sum += value.first;
  return sum;
}

struct Fixture {
  NodeRecord record;
  tmk::ProgramSites sites{"/nonexistent/program"};
  ProgramProfile profile{record, sites, true};
  std::unique_ptr<tmk::Channel> channel = std::make_unique<tmk::Channel>();

  Fixture() {
    record.max_segments = 100;
    channel->request = tmk::Request::Barrier;
  }
};

// A barrier posted at 1000 ns, taken by the agent at 1010, which closes the interval until 1400
// and sends its arrival; the release comes in at 2000 (300 of it the last arrival's delay), the
// agent replies at 2010, the program resumes at 2015.
void barrier(Fixture& f) {
  f.profile.request_taken(*f.channel, 0, 1000, 1010);
  f.profile.entered(lrc::Operation::Barrier);
  ProgramProfile::Exchange& x = f.profile.exchange(lrc::Operation::Barrier, 7);
  x.start_ns = 1400;
  x.end_ns = 2000;
  x.sync_ns = 300;
  x.remote_node = 0;
  x.cause_node = 1;
  f.profile.replied(2010);
  f.profile.close(2015);
}

TEST(ProgramProfile, TheWorkBeforeARequestIsSentIsExtraNotWait) {
  Fixture f;
  barrier(f);
  ASSERT_EQ(f.record.waits.size(), 1U);
  const MeasuredWait& w = f.record.waits.front();
  EXPECT_DOUBLE_EQ(w.start_ns, 1400);
  EXPECT_DOUBLE_EQ(w.duration_ns, 615);
  EXPECT_DOUBLE_EQ(part(w, WaitPart::CPLWait), 0) << "the hand-off is before the request is sent";
  EXPECT_DOUBLE_EQ(part(w, WaitPart::SyncDelay), 300);
  EXPECT_DOUBLE_EQ(part(w, WaitPart::CPComm), 300);
  EXPECT_DOUBLE_EQ(part(w, WaitPart::PPLWait), 5);
  EXPECT_DOUBLE_EQ(part(w, WaitPart::CPLComp), 10);
  EXPECT_DOUBLE_EQ(profiled(f.record, Category::Wait, "barrier"), 615);
  EXPECT_DOUBLE_EQ(profiled(f.record, Category::Extra, "barrier"), 400) << "hand-off and the close";
  EXPECT_DOUBLE_EQ(profiled(f.record, Category::Comp, "none"), 1000);
}

TEST(ProgramProfile, TheTimelineHasTheExtraStretchThenTheWait) {
  Fixture f;
  barrier(f);
  std::vector<SegmentRecord> program;
  for (const SegmentRecord& s : f.record.segments)
    if (s.category != Category::Comp) program.push_back(s);
  ASSERT_EQ(program.size(), 2U);
  EXPECT_EQ(program[0].category, Category::Extra);
  EXPECT_DOUBLE_EQ(program[0].start_ns, 1000);
  EXPECT_DOUBLE_EQ(program[0].end_ns, 1400);
  EXPECT_EQ(program[1].category, Category::Wait);
  EXPECT_DOUBLE_EQ(program[1].start_ns, 1400);
  EXPECT_DOUBLE_EQ(program[1].end_ns, 2015);
}

TEST(ProgramProfile, WorkBetweenTwoExchangesIsExtraAndTheTimeAddsUp) {
  Fixture f;
  f.channel->request = tmk::Request::Fault;
  f.profile.request_taken(*f.channel, 0, 1000, 1002);
  f.profile.entered(lrc::Operation::PageFault);
  ProgramProfile::Exchange& page = f.profile.exchange(lrc::Operation::PageFault, 3);
  page.start_ns = 1010;
  page.end_ns = 1100;
  page.service_ns = 20;
  ProgramProfile::Exchange& diffs = f.profile.exchange(lrc::Operation::DiffFetch, 3);
  diffs.start_ns = 1130;
  diffs.end_ns = 1200;
  f.profile.replied(1210);
  f.profile.close(1220);
  ASSERT_EQ(f.record.waits.size(), 2U);
  EXPECT_DOUBLE_EQ(f.record.waits[0].start_ns, 1010);
  EXPECT_DOUBLE_EQ(f.record.waits[0].duration_ns, 90);
  EXPECT_DOUBLE_EQ(part(f.record.waits[0], WaitPart::CPRComp), 20);
  EXPECT_DOUBLE_EQ(f.record.waits[1].duration_ns, 90);
  EXPECT_DOUBLE_EQ(part(f.record.waits[1], WaitPart::PPLWait), 10);
  // 220 ns from posting to resuming: 180 waited, the 10 before sending and 30 between are Extra.
  EXPECT_DOUBLE_EQ(profiled(f.record, Category::Extra, "page fault"), 40);
}

TEST(ProgramProfile, ASendingStampBeforeThePostingIsTakenAsThePosting) {
  Fixture f;  // the program's and the agent's clocks differ by a little
  f.profile.request_taken(*f.channel, 0, 1000, 1000);
  f.profile.entered(lrc::Operation::Barrier);
  ProgramProfile::Exchange& x = f.profile.exchange(lrc::Operation::Barrier, 1);
  x.start_ns = 990;
  x.end_ns = 1500;
  f.profile.replied(1500);
  f.profile.close(1500);
  ASSERT_EQ(f.record.waits.size(), 1U);
  EXPECT_DOUBLE_EQ(f.record.waits[0].start_ns, 1000);
  EXPECT_DOUBLE_EQ(f.record.waits[0].duration_ns, 500);
  EXPECT_DOUBLE_EQ(profiled(f.record, Category::Extra, "barrier"), 0);
}

}  // namespace
}  // namespace ncp2::real
