// The bandwidth trace format (docs/scheduling.md, "Trace files"): round trip and clear refusals.
#include <gtest/gtest.h>

#include <string>

#include "scheduling/programs.hpp"
#include "scheduling/trace.hpp"

namespace ncp2::sched {
namespace {

std::string refusal(const std::string& text) {
  try {
    parse_trace(text, "t.trace");
  } catch (const TraceError& e) {
    return e.what();
  }
  return "accepted";
}

TEST(Trace, FormatAndParseRoundTrip) {
  const DemandTrace original = characterized_programs().at(2);
  const DemandTrace back = parse_trace(format_trace(original), "round trip");
  EXPECT_EQ(back.name, original.name);
  EXPECT_EQ(back.threads, original.threads);
  EXPECT_EQ(back.step, original.step);
  EXPECT_EQ(back.endless, original.endless);
  ASSERT_EQ(back.demand.size(), original.demand.size());
  for (std::size_t i = 0; i < back.demand.size(); ++i)
    EXPECT_NEAR(back.demand[i].per_us(), original.demand[i].per_us(),
                1e-4 * (1 + original.demand[i].per_us()));
}

TEST(Trace, ReadsCommentsAndBlankLines) {
  const auto t = parse_trace(
      "# recorded\nncp2-bandwidth-trace 1\nname sor  # the program\nthreads 2\nstep_us "
      "1000\n\ndata\n1.5\n0\n",
      "x");
  EXPECT_EQ(t.name, "sor");
  EXPECT_EQ(t.threads, 2);
  EXPECT_EQ(t.step, emu::milliseconds(1));
  EXPECT_EQ(t.demand.size(), 2U);
  EXPECT_EQ(t.solo_time(), emu::milliseconds(2));
  EXPECT_DOUBLE_EQ(t.mean_demand().per_us(), 0.75);
}

TEST(Trace, RefusesWhatIsNotATraceWithTheLine) {
  EXPECT_EQ(refusal(""), "t.trace: empty file, not a bandwidth trace");
  EXPECT_NE(refusal("hello\n").find("t.trace:1: not a bandwidth trace"), std::string::npos);
  const std::string head = "ncp2-bandwidth-trace 1\nname x\nstep_us 100\n";
  EXPECT_NE(refusal(head + "data\n1\n-2\n").find("t.trace:6: a demand cannot be negative"),
            std::string::npos);
  EXPECT_NE(refusal(head + "data\n1\nabc\n").find("t.trace:6: 'abc' is not a number"), std::string::npos);
  EXPECT_NE(refusal(head + "data\n1\nnan\n").find("is not a number"), std::string::npos);
  EXPECT_NE(refusal(head + "1\n").find("unknown key '1'"), std::string::npos);
  EXPECT_NE(refusal(head + "threads 0\ndata\n1\n").find("threads must be 1..1024"), std::string::npos);
  EXPECT_NE(refusal(head + "endless yes\ndata\n1\n").find("endless must be 0 or 1"), std::string::npos);
  EXPECT_NE(refusal(head).find("no 'data' line"), std::string::npos);
  EXPECT_NE(refusal(head + "data\n").find("no demand lines"), std::string::npos);
  EXPECT_NE(refusal("ncp2-bandwidth-trace 1\nname x\ndata\n1\n").find("no step_us"), std::string::npos);
  EXPECT_NE(refusal("ncp2-bandwidth-trace 1\nstep_us 5\ndata\n1\n").find("no name"), std::string::npos);
}

TEST(Trace, AMissingFileIsSaid) {
  try {
    read_trace_file("/nonexistent/dir/x.trace");
    FAIL() << "read a missing file";
  } catch (const TraceError& e) {
    EXPECT_EQ(std::string(e.what()), "/nonexistent/dir/x.trace: cannot open the trace file");
  }
}

TEST(Trace, TheMicrobenchmarksAreWhatTheSurveySays) {
  const DemandTrace bbma = bbma_trace();
  const DemandTrace nbbma = nbbma_trace();
  EXPECT_TRUE(bbma.endless);
  EXPECT_TRUE(nbbma.endless);
  // Four BBMA saturate the 29.5 bus; four nBBMA hardly touch it.
  EXPECT_GT(bbma.mean_demand().per_us() * 4, 29.5);
  EXPECT_LT(nbbma.mean_demand().per_us() * 4, 0.5);
  for (const auto& p : characterized_programs()) {
    EXPECT_EQ(p.threads, 2) << p.name;
    EXPECT_FALSE(p.endless) << p.name;
  }
}

}  // namespace
}  // namespace ncp2::sched
