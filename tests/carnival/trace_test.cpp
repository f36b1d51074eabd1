// Chrome trace-event export: it parses, has the expected events, slices nest per thread, the flow
// arrows land where the parts say.
#include <filesystem>
#include <map>
#include <sstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "carnival/trace_export.hpp"
#include "fixture.hpp"
#include "temp_dir.hpp"

namespace ncp2::carnival {
namespace {

using nlohmann::json;
using testing::make_fixture;

json trace_of(const RunData& d, TraceCounts* counts = nullptr) {
  std::ostringstream out;
  const auto c = write_trace(d, out);
  if (counts) *counts = c;
  return json::parse(out.str());
}

std::vector<json> events(const json& trace, const std::string& ph) {
  std::vector<json> out;
  for (const auto& e : trace["traceEvents"])
    if (e["ph"] == ph) out.push_back(e);
  return out;
}

// Microseconds as the exporter prints them, back in picoseconds.
std::int64_t ps(const json& microseconds) { return std::llround(microseconds.get<double>() * 1e6); }

TEST(TraceExport, MicrosecondsExactToThePicosecond) {
  EXPECT_EQ(trace_microseconds(0), "0.000000");
  EXPECT_EQ(trace_microseconds(1), "0.000001");
  EXPECT_EQ(trace_microseconds(1'500'000), "1.500000");
  EXPECT_EQ(trace_microseconds(123'456'789'012'345), "123456789.012345");
  EXPECT_EQ(trace_microseconds(-1), "-0.000001");
}

TEST(TraceExport, EventCounts) {
  TraceCounts counts;
  const json t = trace_of(make_fixture(), &counts);
  ASSERT_TRUE(t["traceEvents"].is_array());
  // 2 nodes x (process_name, process_sort_index, 2 thread_name, 2 thread_sort_index).
  EXPECT_EQ(events(t, "M").size(), 12U);
  // 11 segments, cut at the waits' boundaries inside them: node 0 PP Extra [1100, 1300) at wait 6
  // (+2), node 1 PP Comp [0, 1300) at wait 4 (+2), node 1 CP CPIdle at the CPWait 5 (+2) -> 17;
  // plus 6 waits.
  EXPECT_EQ(events(t, "X").size(), 17U + 6U);
  // Waits 1, 2, 3, 4, 6 were served by the other node: 2 arrows each, as s + f.
  EXPECT_EQ(events(t, "s").size(), 10U);
  EXPECT_EQ(events(t, "f").size(), 10U);
  EXPECT_EQ(counts.processes, 2U);
  EXPECT_EQ(counts.segments, 17U);
  EXPECT_EQ(counts.waits, 6U);
  EXPECT_EQ(counts.flows, 20U);
  EXPECT_EQ(counts.events(), t["traceEvents"].size());
  EXPECT_EQ(t["otherData"]["workload"], "phases");
}

TEST(TraceExport, ProcessesAndThreadsAreNamed) {
  const json t = trace_of(make_fixture());
  std::map<std::pair<int, int>, std::string> threads;
  std::map<int, std::string> processes;
  for (const auto& e : events(t, "M")) {
    if (e["name"] == "process_name") processes[e["pid"]] = e["args"]["name"];
    if (e["name"] == "thread_name") threads[{e["pid"], e["tid"]}] = e["args"]["name"];
  }
  EXPECT_EQ(processes, (std::map<int, std::string>{{1, "node 0"}, {2, "node 1"}}));
  EXPECT_EQ(threads, (std::map<std::pair<int, int>, std::string>{
                         {{1, 1}, "PP"}, {{1, 2}, "CP"}, {{2, 3}, "PP"}, {{2, 4}, "CP"}}));
}

TEST(TraceExport, WaitSliceCarriesItsParts) {
  const json t = trace_of(make_fixture());
  json first;
  for (const auto& e : events(t, "X"))
    if (e["cat"] == "wait" && e["args"]["id"] == 1) first = e;
  ASSERT_FALSE(first.is_null());
  EXPECT_EQ(first["name"], "barrier wait");
  EXPECT_EQ(first["pid"], 1);
  EXPECT_EQ(first["tid"], 1);
  EXPECT_EQ(ps(first["ts"]), testing::us(500));
  EXPECT_EQ(ps(first["dur"]), testing::us(200));
  EXPECT_EQ(first["args"]["SyncDelay_ps"], testing::us(130));
  EXPECT_EQ(first["args"]["CPLWait_ps"], testing::us(10));
  EXPECT_EQ(first["args"]["cause_node"], 1);
  EXPECT_EQ(first["args"]["remote_node"], 1);
  EXPECT_EQ(first["args"]["scope"], "phase loop (workloads/phases.cpp:10-50)");
  // The CP's wait sits on the CP thread.
  for (const auto& e : events(t, "X"))
    if (e["cat"] == "wait" && e["args"]["kind"] == "CPWait") {
      EXPECT_EQ(e["tid"], 4);
    }
}

TEST(TraceExport, FlowsGoToTheServingNodeAndBack) {
  const json t = trace_of(make_fixture());
  std::map<std::uint64_t, json> starts, finishes;
  for (const auto& e : events(t, "s")) starts[e["id"]] = e;
  for (const auto& e : events(t, "f")) {
    finishes[e["id"]] = e;
    // A request binds to the next slice on the serving resource, a reply to the enclosing wait.
    if (e["name"] == "reply") {
      EXPECT_EQ(e["bp"], "e");
    } else {
      EXPECT_FALSE(e.contains("bp"));
    }
  }
  ASSERT_EQ(starts.size(), 10U);
  for (const auto& [id, s] : starts) {
    ASSERT_TRUE(finishes.contains(id));
    EXPECT_EQ(finishes[id]["name"], s["name"]);
    EXPECT_LE(s["ts"].get<double>(), finishes[id]["ts"].get<double>());
  }
  // Wait 1 (node 0, [500, 700) us, remote node 1 on ncp2 -> its CP): the request arrives after
  // half of CPLWait + CPLComp + CPComm (40 / 2), the reply leaves before PPLWait and the other half.
  const json& request = finishes[0];
  EXPECT_EQ(starts[0]["pid"], 1);
  EXPECT_EQ(ps(starts[0]["ts"]), testing::us(500));
  EXPECT_EQ(request["pid"], 2);
  EXPECT_EQ(request["tid"], 4);
  EXPECT_EQ(ps(request["ts"]), testing::us(520));
  EXPECT_EQ(ps(starts[1]["ts"]),
            testing::us(670));  // 700 - 10 - 20; 670 - 520 = CPRWait + CPRComp + SyncDelay
  EXPECT_EQ(finishes[1]["pid"], 1);
  EXPECT_EQ(ps(finishes[1]["ts"]), testing::us(700) - 1);  // inside the wait's slice
}

TEST(TraceExport, ReplyLeavesFromTheRemotesLastActivityWhenTheEstimateFallsInAGap) {
  RunData d = make_fixture();
  // Node 1's CP: no idle segments, only a command at [600, 650) us, between the request's
  // estimated arrival (520) and its reply's estimated departure (670).
  std::erase_if(d.timeline, [](const Segment& g) { return g.node == 1 && g.cp; });
  d.timeline.push_back({1, true, Category::CPComp, "barrier", 1, testing::us(600), testing::us(650)});
  const json t = trace_of(d);
  for (const auto& e : events(t, "s"))
    if (e["id"] == 1) {
      EXPECT_EQ(ps(e["ts"]), testing::us(650) - 1);
    }
}

TEST(TraceExport, TreadmarksRequestsArriveAtThePP) {
  RunData d = make_fixture();
  d.run.machine = "treadmarks";
  const json t = trace_of(d);
  for (const auto& e : events(t, "f"))
    if (e["name"] == "request") {
      EXPECT_EQ(e["tid"].get<int>() % 2, 1) << e.dump();  // PP tids are odd
    }
}

TEST(TraceExport, SlicesNestOnEveryThread) {
  const json t = trace_of(make_fixture());
  std::map<std::pair<int, int>, std::vector<std::pair<std::int64_t, std::int64_t>>> slices;
  for (const auto& e : events(t, "X")) {
    const auto from = ps(e["ts"]);
    slices[{e["pid"], e["tid"]}].emplace_back(from, from + ps(e["dur"]));
  }
  for (const auto& [thread, list] : slices)
    for (const auto& a : list)
      for (const auto& b : list) {
        const bool disjoint = a.second <= b.first || b.second <= a.first;
        const bool nested =
            (a.first <= b.first && b.second <= a.second) || (b.first <= a.first && a.second <= b.second);
        EXPECT_TRUE(disjoint || nested)
            << "pid " << thread.first << " tid " << thread.second << ": [" << a.first << ", " << a.second
            << ") and [" << b.first << ", " << b.second << ")";
      }
}

class TraceFileTest : public testing::TempDirTest {};

TEST_F(TraceFileTest, ExportWritesTheFileAtomically) {
  const auto counts = export_trace(make_fixture(), path("trace.json"));
  EXPECT_EQ(files(), std::vector<std::string>{"trace.json"});
  const json t = json::parse(slurp(path("trace.json")));
  EXPECT_EQ(t["traceEvents"].size(), counts.events());
  EXPECT_THROW(export_trace(make_fixture(), path("no/such/dir/trace.json")), std::runtime_error);
}

}  // namespace
}  // namespace ncp2::carnival
