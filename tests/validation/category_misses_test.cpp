// Why a wait category misses (validation/category_misses.hpp): the waits of each side per operation —
// count, median, mean, the program's resumption, the waits over 1 ms — and the note that splits a
// category's miss into its slow waits and the rest.
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "carnival/wait_parts.hpp"
#include "validation/category_misses.hpp"
#include "validation/validate.hpp"

namespace ncp2::validation {
namespace {

constexpr std::int64_t kUs = 1'000'000;  // picoseconds

carnival::WaitRow wait(std::string op, std::int64_t duration_us, std::int64_t resume_us,
                       std::string kind = "Wait") {
  carnival::WaitRow w;
  w.operation = std::move(op);
  w.kind = std::move(kind);
  w.duration_ps = duration_us * kUs;
  w.parts[static_cast<std::size_t>(carnival::WaitPart::PPLWait)] = resume_us * kUs;
  w.parts[static_cast<std::size_t>(carnival::WaitPart::CPComm)] = (duration_us - resume_us) * kUs;
  return w;
}

// Measured: 10 diff fetches of 20 us (8 us of it resuming) and 3 of 2.5 ms; a lock acquire of
// exactly 1 ms (not over it); a CP's wait, which is not the program's. Predicted: 12 diff fetches
// of 14 us (1 us resuming) and one of 2 ms; the same lock acquire.
carnival::RunData measured() {
  carnival::RunData d;
  for (int i = 0; i < 10; ++i) d.waits.push_back(wait("diff fetch", 20, 8));
  for (int i = 0; i < 3; ++i) d.waits.push_back(wait("diff fetch", 2500, 8));
  d.waits.push_back(wait("lock acquire", 1000, 0));
  d.waits.push_back(wait("diff fetch", 90000, 0, "CPWait"));
  return d;
}

carnival::RunData predicted() {
  carnival::RunData d;
  for (int i = 0; i < 12; ++i) d.waits.push_back(wait("diff fetch", 14, 1));
  d.waits.push_back(wait("diff fetch", 2000, 1));
  d.waits.push_back(wait("lock acquire", 1000, 0));
  return d;
}

const std::vector<std::string> kOps{"page fault", "diff fetch", "lock acquire"};

TEST(WaitStats, EachSideCountsItsProgramWaitsPerOperation) {
  const auto stats = wait_stats(measured(), predicted(), kOps);
  ASSERT_EQ(stats.size(), 3u);
  EXPECT_EQ(stats[0].operation, "page fault");
  EXPECT_EQ(stats[0].measured.count, 0u);
  EXPECT_EQ(stats[0].predicted.count, 0u);

  const WaitSide& m = stats[1].measured;
  EXPECT_EQ(m.count, 13u);  // the CP's wait is not counted
  EXPECT_DOUBLE_EQ(m.median_us, 20);
  EXPECT_NEAR(m.mean_us, (10 * 20 + 3 * 2500) / 13.0, 1e-9);
  EXPECT_NEAR(m.resume_us, 8, 1e-9);
  EXPECT_EQ(m.slow_count, 3u);
  EXPECT_NEAR(m.slow_s, 7.5e-3, 1e-12);
  EXPECT_NEAR(m.total_s, 7.7e-3, 1e-12);

  const WaitSide& p = stats[1].predicted;
  EXPECT_EQ(p.count, 13u);
  EXPECT_DOUBLE_EQ(p.median_us, 14);
  EXPECT_NEAR(p.resume_us, 1, 1e-9);
  EXPECT_EQ(p.slow_count, 1u);
  EXPECT_NEAR(p.slow_s, 2e-3, 1e-12);

  // Exactly 1 ms is not over it.
  EXPECT_EQ(stats[2].measured.slow_count, 0u);
  EXPECT_DOUBLE_EQ(stats[2].measured.median_us, 1000);
}

TEST(WaitStats, AnEvenCountTakesTheLowerMiddle) {
  carnival::RunData d;
  for (const std::int64_t t : {40, 10, 30, 20}) d.waits.push_back(wait("barrier", t, 0));
  const auto stats = wait_stats(d, d, {"barrier"});
  EXPECT_DOUBLE_EQ(stats[0].measured.median_us, 20);
}

TEST(WaitStats, TheNoteSplitsAMissIntoTheSlowWaitsAndTheRest) {
  const auto notes = wait_miss_notes(wait_stats(measured(), predicted(), kOps), kWaitMissPct);
  ASSERT_EQ(notes.size(), 1u);  // the lock acquires agree; no page fault on either side
  const std::string& n = notes[0];
  // 7.7 ms measured, 2.168 ms predicted: 5.532 ms less, 5.5 ms of it in the slow waits.
  EXPECT_EQ(n.rfind("diff fetch: 0.0055 s less predicted than measured (-72 %)", 0), 0u) << n;
  EXPECT_NE(n.find("0.0055 s less in the waits over 1 ms (3 measured, 1 predicted"), std::string::npos) << n;
  EXPECT_NE(n.find("0.0000 s less in the others (10 -> 12 waits"), std::string::npos) << n;
  EXPECT_NE(n.find("resuming after the reply 8.0 -> 1.0 us a wait"), std::string::npos) << n;
}

TEST(WaitStats, NoNoteWithinTheGoalOrForLessThanAMillisecond) {
  // 10 % apart: within the goal.
  carnival::RunData m, p;
  for (int i = 0; i < 100; ++i) m.waits.push_back(wait("barrier", 100, 0));
  for (int i = 0; i < 100; ++i) p.waits.push_back(wait("barrier", 110, 0));
  EXPECT_TRUE(wait_miss_notes(wait_stats(m, p, {"barrier"}), kWaitMissPct).empty());
  // Half of it, but 0.5 ms in all: too little to explain.
  carnival::RunData small_m, small_p;
  for (int i = 0; i < 10; ++i) small_m.waits.push_back(wait("barrier", 100, 0));
  for (int i = 0; i < 10; ++i) small_p.waits.push_back(wait("barrier", 50, 0));
  EXPECT_TRUE(wait_miss_notes(wait_stats(small_m, small_p, {"barrier"}), kWaitMissPct).empty());
  // Nothing measured: no percentage to give.
  EXPECT_TRUE(wait_miss_notes(wait_stats(carnival::RunData{}, p, {"barrier"}), kWaitMissPct).empty());
}

TEST(WaitStats, AnOverPredictionSaysMore) {
  carnival::RunData m, p;
  for (int i = 0; i < 100; ++i) m.waits.push_back(wait("page fault", 30, 2));
  for (int i = 0; i < 100; ++i) p.waits.push_back(wait("page fault", 60, 2));
  const auto notes = wait_miss_notes(wait_stats(m, p, {"page fault"}), kWaitMissPct);
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_EQ(notes[0].rfind("page fault: 0.0030 s more predicted than measured (+100 %)", 0), 0u) << notes[0];
  EXPECT_NE(notes[0].find("(+100 %): with no wait over 1 ms on either side (100 -> 100 waits; the median "
                          "of all 30.0 -> 60.0 us"),
            std::string::npos)
      << notes[0];
}

TEST(WaitStats, TextAndJsonGiveBothSides) {
  const auto stats = wait_stats(measured(), predicted(), kOps);
  const std::string text = wait_stats_text(stats);
  EXPECT_NE(text.find("waits by operation (all nodes)"), std::string::npos) << text;
  EXPECT_NE(text.find("diff fetch, measured"), std::string::npos) << text;
  EXPECT_NE(text.find("          , predicted"), std::string::npos) << text;
  const nlohmann::json j = wait_stats_json(stats);
  ASSERT_EQ(j.size(), 3u);
  EXPECT_EQ(j[1]["operation"], "diff fetch");
  for (const char* key : {"count", "total_s", "median_us", "mean_us", "resume_us", "slow_count", "slow_s"}) {
    EXPECT_TRUE(j[1]["measured"].contains(key)) << key;
    EXPECT_TRUE(j[1]["predicted"].contains(key)) << key;
  }
  EXPECT_EQ(j[1]["measured"]["slow_count"], 3);
  EXPECT_EQ(j[1]["predicted"]["count"], 13);
}

carnival::ProfileCell cell(int node, carnival::Category category, std::string operation,
                           std::int64_t time_us) {
  carnival::ProfileCell c;
  c.node = node;
  c.category = category;
  c.operation = std::move(operation);
  c.time_ps = time_us * kUs;
  c.count = 1;
  return c;
}

// Measured: lock acquire 3 ms + 1 ms (two nodes), barrier 2 ms, a write fault 0.5 ms and 9 ms of
// computation. Predicted: lock acquire 1 ms, barrier 2.1 ms, a lock release 0.2 ms.
TEST(ProtocolWork, SummedPerOperationOverTheNodesLargestMeasuredFirst) {
  carnival::RunData m, p;
  m.profile = {cell(0, carnival::Category::Extra, "lock acquire", 3000),
               cell(1, carnival::Category::Extra, "lock acquire", 1000),
               cell(0, carnival::Category::Extra, "barrier", 2000),
               cell(1, carnival::Category::Extra, "write fault", 500),
               cell(0, carnival::Category::Comp, "none", 9000)};
  p.profile = {cell(0, carnival::Category::Extra, "lock acquire", 1000),
               cell(0, carnival::Category::Extra, "barrier", 2100),
               cell(1, carnival::Category::Extra, "lock release", 200)};
  const auto rows = protocol_work_by_operation(m, p);
  ASSERT_EQ(rows.size(), 4u);  // the computation is not protocol work
  EXPECT_EQ(rows[0].name, "lock acquire");
  EXPECT_NEAR(rows[0].measured_s, 4e-3, 1e-12);
  EXPECT_NEAR(rows[0].predicted_s, 1e-3, 1e-12);
  EXPECT_EQ(rows[1].name, "barrier");
  EXPECT_EQ(rows[2].name, "write fault");
  EXPECT_EQ(rows[3].name, "lock release");
  EXPECT_NEAR(rows[3].measured_s, 0, 1e-15);

  // 6.5 ms measured, 3.3 ms predicted: the note names the three largest differences, in order (the
  // barrier's +0.1 ms is the fourth).
  const auto notes = protocol_work_miss_notes(rows, kWaitMissPct);
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_EQ(
      notes[0],
      "protocol work: 0.0032 s less predicted than measured (-49 %), by operation most in: lock acquire "
      "-0.0030 s (0.0040 -> 0.0010), write fault -0.0005 s (0.0005 -> 0.0000), lock release +0.0002 s "
      "(0.0000 -> 0.0002)");
}

TEST(ProtocolWork, NoNoteWithinTheGoal) {
  carnival::RunData m, p;
  m.profile = {cell(0, carnival::Category::Extra, "lock acquire", 10000)};
  p.profile = {cell(0, carnival::Category::Extra, "lock acquire", 12000)};
  EXPECT_TRUE(protocol_work_miss_notes(protocol_work_by_operation(m, p), kWaitMissPct).empty());
}

}  // namespace
}  // namespace ncp2::validation
