// Reports on the fixture run: numbers, ordering, bar lengths, and every format parses.
#include <algorithm>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "carnival/report.hpp"
#include "fixture.hpp"

namespace ncp2::carnival {
namespace {

using ::testing::HasSubstr;
using testing::make_fixture;
using ::testing::Not;
using ::testing::StartsWith;
using testing::us;

// The CPWait Map's rows (shared by the report and the GUI): summed over nodes per (scope, kind,
// operation), or one node's; largest first; every part carried.
TEST(CPWaitMap, SumsOverNodesPerSourceLargestFirst) {
  auto row = [](int node, std::uint32_t scope, const char* op, std::int64_t sync, std::int64_t comm) {
    WaitSummary w;
    w.node = node;
    w.scope = scope;
    w.operation = op;
    w.kind = "Wait";
    w.count = 2;
    w.parts[static_cast<std::size_t>(WaitPart::SyncDelay)] = sync;
    w.parts[static_cast<std::size_t>(WaitPart::CPComm)] = comm;
    w.total_ps = sync + comm;
    return w;
  };
  const std::vector<WaitSummary> summary = {row(0, 1, "barrier", 100, 0), row(1, 1, "barrier", 300, 0),
                                            row(0, 2, "page fault", 0, 350), row(1, 2, "diff fetch", 0, 50)};
  const auto all = cpwait_map(summary);
  ASSERT_EQ(all.size(), 3U);
  EXPECT_EQ(all[0].operation, "barrier");
  EXPECT_EQ(all[0].total_ps, 400);
  EXPECT_EQ(all[0].count, 4U);
  EXPECT_EQ(all[0].parts[static_cast<std::size_t>(WaitPart::SyncDelay)], 400);
  EXPECT_EQ(all[1].operation, "page fault");
  EXPECT_EQ(all[2].operation, "diff fetch");
  const auto node1 = cpwait_map(summary, 1);
  ASSERT_EQ(node1.size(), 2U);
  EXPECT_EQ(node1[0].total_ps, 300);
  EXPECT_EQ(node1[1].parts[static_cast<std::size_t>(WaitPart::CPComm)], 50);
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

// The first line that contains every needle (in a section starting at the line with `section`).
std::string line_with(const std::string& text, const std::vector<std::string>& needles,
                      const std::string& section = "") {
  bool in_section = section.empty();
  for (const auto& line : lines_of(text)) {
    if (!in_section) {
      in_section = line.find(section) != std::string::npos;
      continue;
    }
    if (std::all_of(needles.begin(), needles.end(),
                    [&](const auto& n) { return line.find(n) != std::string::npos; }))
      return line;
  }
  return "";
}

std::size_t count(const std::string& s, const std::string& glyph) {
  std::size_t n = 0;
  for (auto p = s.find(glyph); p != std::string::npos; p = s.find(glyph, p + glyph.size())) ++n;
  return n;
}

// Cells of all block-element glyphs the bars use.
std::size_t bar_cells(const std::string& line) {
  std::size_t n = 0;
  for (const char* g : {"█", "▓", "▒", "░", "▚", "▞", "▄", "▀", "▐"}) n += count(line, g);
  return n;
}

std::string render(const RunData& d, std::vector<ReportView> views, ReportFormat f, std::size_t top = 20) {
  ReportOptions o;
  o.views = std::move(views);
  o.format = f;
  o.top = top;
  return render_report(d, o);
}

// RFC 4180 fields of one record (the fixture has no newline inside a field).
std::vector<std::string> csv_fields(const std::string& line) {
  std::vector<std::string> out(1);
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        out.back() += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        out.back() += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      out.emplace_back();
    } else {
      out.back() += c;
    }
  }
  EXPECT_FALSE(quoted) << line;
  return out;
}

TEST(FormatPs, HumanUnitsWithThreeSignificantDigits) {
  EXPECT_EQ(format_ps(0), "0");
  EXPECT_EQ(format_ps(850), "850 ps");
  EXPECT_EQ(format_ps(12'500), "12.5 ns");
  EXPECT_EQ(format_ps(1'234'000), "1.23 us");
  EXPECT_EQ(format_ps(999'700'000), "1.00 ms");
  EXPECT_EQ(format_ps(us(3900)), "3.90 ms");
  EXPECT_EQ(format_ps(us(550)), "550 us");
  EXPECT_EQ(format_ps(2'000'000'000'000), "2.00 s");
  EXPECT_EQ(format_ps(-us(12)), "-12.0 us");
}

TEST(DrawBar, SplitsByLargestRemainders) {
  const std::vector<std::string_view> g = {"a", "b", "c", "d"};
  // 24 cells of 2250 : 200 : 1300 : 150 -> 13.85, 1.23, 8.00, 0.92 -> 14, 1, 8, 1
  EXPECT_EQ(draw_bar({2250, 200, 1300, 150}, g, 24), "aaaaaaaaaaaaaabccccccccd");
  EXPECT_EQ(draw_bar({0, 0, 0, 0}, g, 24), "");
  EXPECT_EQ(draw_bar({1, 1, 1, 1}, g, 0), "");
  EXPECT_EQ(draw_bar({5, 0, 0, 5}, g, 3), "aad");
}

TEST(ReportText, HeaderSaysWhatRanAndHowItEnded) {
  const std::string out = render(make_fixture(), {ReportView::Nodes}, ReportFormat::Text);
  EXPECT_THAT(out, StartsWith("CARNIVAL report\n"));
  EXPECT_THAT(out, HasSubstr("workload     phases {\"n\":64,\"phases\":2}, seed 18446744073709551600\n"));
  EXPECT_THAT(out, HasSubstr("machine      ncp2, 2 nodes\n"));
  EXPECT_THAT(out, HasSubstr("status       complete\n"));
  EXPECT_THAT(out, HasSubstr("virtual time 2.00 ms (timed region)\n"));
  EXPECT_THAT(out, HasSubstr("verified     yes: sum matches"));
}

TEST(ReportText, IncompleteAndFailedRunsAreFlagged) {
  RunData d = make_fixture();
  d.run.status = "incomplete";
  EXPECT_THAT(render(d, {ReportView::Nodes}, ReportFormat::Text),
              HasSubstr("status       WARNING: this run is INCOMPLETE"));
  EXPECT_THAT(render(d, {ReportView::Nodes}, ReportFormat::Markdown),
              HasSubstr("> **WARNING: this run is INCOMPLETE"));
  d.run.status = "failed";
  EXPECT_THAT(render(d, {ReportView::Nodes}, ReportFormat::Text), HasSubstr("WARNING: this run FAILED"));
  nlohmann::json j = nlohmann::json::parse(render(d, {ReportView::Nodes}, ReportFormat::Json));
  EXPECT_EQ(j["run"]["status"], "failed");
}

TEST(ReportText, ScopeTreeInclusiveExclusiveAndBars) {
  const std::string out = render(make_fixture(), {ReportView::Scopes}, ReportFormat::Text);
  const auto lines = lines_of(out);
  auto index = [&](const std::string& start) {
    for (std::size_t i = 0; i < lines.size(); ++i)
      if (lines[i].rfind(start, 0) == 0) return static_cast<int>(i);
    return -1;
  };
  // Depth-first, children by inclusive time: program > phase loop > update, then verify.
  const int program = index("program "), loop = index("  phase loop "), update = index("    update "),
            verify = index("  verify ");
  ASSERT_GE(program, 0) << out;
  EXPECT_LT(program, loop);
  EXPECT_LT(loop, update);
  EXPECT_LT(update, verify);

  const std::string& root = lines[static_cast<std::size_t>(program)];
  EXPECT_THAT(root, HasSubstr("workloads/phases.cpp:1-100"));
  EXPECT_THAT(root, HasSubstr("3.90 ms  100.0%"));           // inclusive
  EXPECT_THAT(root, HasSubstr("200 us   5.1%"));             // exclusive: 100 + 100 us
  EXPECT_THAT(root, HasSubstr("2.25 ms"));                   // Comp, inclusive
  EXPECT_THAT(root, HasSubstr("1.30 ms"));                   // Wait
  EXPECT_THAT(root, HasSubstr("██████████████▓▒▒▒▒▒▒▒▒░"));  // 14 Comp, 1 Extra, 8 Wait, 1 Prste
  const std::string& l = lines[static_cast<std::size_t>(loop)];
  EXPECT_THAT(l, HasSubstr("3.55 ms   91.0%"));
  EXPECT_THAT(l, HasSubstr("1.50 ms  38.5%"));
  const std::string& u = lines[static_cast<std::size_t>(update)];
  EXPECT_THAT(u, HasSubstr("2.05 ms   52.6%"));
  // Bars proportional to the inclusive time: 24 x 3900, 3550, 2050, 150 / 3900.
  EXPECT_EQ(bar_cells(root), 24U);
  EXPECT_EQ(bar_cells(l), 22U);
  EXPECT_EQ(bar_cells(u), 13U);
  EXPECT_EQ(bar_cells(lines[static_cast<std::size_t>(verify)]), 1U);
  EXPECT_THAT(out, HasSubstr("█ Comp  ▓ Extra  ▒ Wait  ░ Prste"));
}

TEST(ReportText, TopKeepsTheHottestScopesAndTheirAncestors) {
  const std::string out = render(make_fixture(), {ReportView::Scopes}, ReportFormat::Text, 2);
  EXPECT_THAT(out, HasSubstr("\nprogram "));
  EXPECT_THAT(out, HasSubstr("\n  phase loop "));
  EXPECT_THAT(out, Not(HasSubstr("update")));
  EXPECT_THAT(out, HasSubstr("2 more scope(s) not shown; see --top"));
  // The third hottest (update) brings no new ancestor.
  const auto j = nlohmann::json::parse(render(make_fixture(), {ReportView::Scopes}, ReportFormat::Json, 3));
  EXPECT_EQ(j["scopes"]["rows"].size(), 3U);
  EXPECT_EQ(j["scopes"]["not_shown"], 1);
}

TEST(ReportText, NodesWithImbalance) {
  const std::string out = render(make_fixture(), {ReportView::Nodes}, ReportFormat::Text);
  const std::string n0 = line_with(out, {"1.90 ms"}, "Nodes");
  const std::string n1 = line_with(out, {"2.00 ms", "+2.6%"}, "Nodes");
  EXPECT_THAT(n0, HasSubstr("-2.6%"));
  EXPECT_THAT(n0, HasSubstr("1.30 ms"));  // CPIdle of node 0
  EXPECT_FALSE(n1.empty()) << out;
  // PP time: node 0 1800 us, node 1 2100 us -> bars 21 and 24 cells.
  EXPECT_EQ(bar_cells(n0), 21U);
  EXPECT_EQ(bar_cells(n1), 24U);
  EXPECT_THAT(out,
              HasSubstr("imbalance 2.6% (slowest node's finish over the mean): slowest node 1 at 2.00 ms, "
                        "mean 1.95 ms, fastest node 0 at 1.90 ms"));
}

TEST(ReportText, CPWaitMapSortedByTimeWithCumulativePercent) {
  const std::string out = render(make_fixture(), {ReportView::CPWait}, ReportFormat::Text);
  const auto lines = lines_of(out);
  std::vector<std::string> rows;
  for (const auto& line : lines)
    if (line.find("(workloads/phases.cpp") != std::string::npos) rows.push_back(line);
  ASSERT_EQ(rows.size(), 4U) << out;
  // barrier 800 us (55.2%), page fault 500 (34.5%, cum 89.7), lock 100 (6.9, 96.6), CPWait 50 (3.4, 100).
  EXPECT_THAT(rows[0], HasSubstr("phase loop (workloads/phases.cpp:10-50)  Wait"));
  EXPECT_THAT(rows[0], HasSubstr("barrier"));
  EXPECT_THAT(rows[0], HasSubstr("800 us  55.2%   55.2%"));
  EXPECT_THAT(rows[1], HasSubstr("page fault"));
  EXPECT_THAT(rows[1], HasSubstr("500 us  34.5%   89.7%"));
  EXPECT_THAT(rows[2], HasSubstr("lock acquire"));
  EXPECT_THAT(rows[2], HasSubstr("96.6%"));
  EXPECT_THAT(rows[3], HasSubstr("CPWait"));
  EXPECT_THAT(rows[3], HasSubstr("100.0%"));
  // Bar length against the first row: 24, 15, 3, 2 (1.5 rounds up).
  EXPECT_EQ(bar_cells(rows[0]), 24U);
  EXPECT_EQ(bar_cells(rows[1]), 15U);
  EXPECT_EQ(bar_cells(rows[2]), 3U);
  EXPECT_EQ(bar_cells(rows[3]), 2U);
  // The barrier row is mostly synchronization delay: 630 of 800 us -> 19 of 24 cells.
  EXPECT_EQ(count(rows[0], "█"), 19U);
  EXPECT_THAT(
      out, HasSubstr("░ CPLWait  ▒ CPLComp  ▓ CPComm  ▚ CPRWait  ▞ CPRComp  ▄ PPRWait  ▀ PPRComp  ▐ PPLWait  "
                     "█ SyncDelay"));
}

TEST(ReportText, TopLimitsRowsAndSaysHowManyMore) {
  const std::string out = render(make_fixture(), {ReportView::CPWait}, ReportFormat::Text, 2);
  EXPECT_THAT(out, HasSubstr("2 more source(s) not shown (10.3% of the waiting time); see --top"));
  EXPECT_EQ(line_with(out, {"lock acquire"}), "");
}

TEST(ReportText, CausesOfSynchronizationDelay) {
  const std::string out = render(make_fixture(), {ReportView::Causes}, ReportFormat::Text);
  // node 0 in update 500 us (72.5%), node 1 in update 130 us (18.8%), node 1 in phase loop 60 us (8.7%).
  const std::string first = line_with(out, {"update", "500 us"});
  EXPECT_THAT(first, HasSubstr("72.5%"));
  EXPECT_THAT(first, StartsWith("0 "));
  const std::string second = line_with(out, {"130 us"});
  EXPECT_THAT(second, StartsWith("1 "));
  EXPECT_THAT(second, HasSubstr("18.8%"));
  EXPECT_THAT(line_with(out, {"60.0 us"}), HasSubstr("lock acquire"));
  EXPECT_LT(out.find("500 us"), out.find("130 us"));
  EXPECT_LT(out.find("130 us"), out.find("60.0 us"));
  EXPECT_THAT(out, HasSubstr("total synchronization delay 690 us"));
  EXPECT_THAT(out, Not(HasSubstr("capped")));
}

TEST(ReportText, CausesSayWhenInstancesWereCapped) {
  RunData d = make_fixture();
  d.waits.resize(2);  // waits 1 and 2 stored: 630 of the 690 us
  d.waits_dropped = 4;
  const std::string out = render(d, {ReportView::Causes, ReportView::Waits}, ReportFormat::Text);
  EXPECT_THAT(out,
              HasSubstr("wait instances were capped: 2 stored, 4 not stored; the causes come from the stored "
                        "instances, which hold 630 us of the 690 us synchronization delay in the (complete) "
                        "summary (91.3%)"));
  EXPECT_THAT(out, HasSubstr("wait instances were capped: 2 stored, 4 not stored (the largest"));
}

TEST(ReportText, LargestWaitsFirst) {
  const std::string out = render(make_fixture(), {ReportView::Waits}, ReportFormat::Text);
  std::vector<std::string> ids;
  bool table = false;
  for (const auto& line : lines_of(out)) {
    if (line.rfind("--", 0) == 0) {
      table = true;
      continue;
    }
    if (table && line.empty()) break;
    if (!table) continue;
    const std::string row = line.substr(line.find_first_not_of(' '));
    ids.push_back(row.substr(0, row.find(' ')));
  }
  EXPECT_EQ(ids, (std::vector<std::string>{"2", "3", "1", "4", "6", "5"})) << out;
  EXPECT_THAT(line_with(out, {"600 us"}), HasSubstr("node 0 in update"));
}

TEST(ReportMarkdown, TablesWithAlignedColumns) {
  const std::string out = render(make_fixture(), all_views(), ReportFormat::Markdown);
  EXPECT_THAT(out, StartsWith("# CARNIVAL report: phases\n"));
  EXPECT_THAT(out, HasSubstr("- **status**: complete"));
  EXPECT_THAT(out, HasSubstr("## Scopes"));
  EXPECT_THAT(out, HasSubstr("## CPWait Map"));
  EXPECT_THAT(out, HasSubstr("| Scope | Location | Inclusive | % |"));
  EXPECT_THAT(out, HasSubstr("| --- | --- | ---: | ---: |"));
  EXPECT_THAT(out,
              HasSubstr("| \u00A0\u00A0\u00A0\u00A0update | workloads/phases.cpp:20-30 | 2.05 ms | 52.6% |"));
  // Every row of a table has as many cells as its header.
  std::size_t header_cells = 0;
  for (const auto& line : lines_of(out)) {
    if (line.rfind("|", 0) != 0) {
      header_cells = 0;
      continue;
    }
    const auto cells = count(line, "|") - count(line, "\\|");
    if (header_cells == 0)
      header_cells = cells;
    else
      EXPECT_EQ(cells, header_cells) << line;
  }
}

TEST(ReportCsv, OneTablePerViewThatParses) {
  const std::string out = render(make_fixture(), all_views(), ReportFormat::Csv);
  std::vector<std::string> sections;
  std::size_t columns = 0, rows = 0;
  std::map<std::string, std::vector<std::vector<std::string>>> tables;
  std::string current;
  bool expect_header = false;
  for (const auto& line : lines_of(out)) {
    if (line.rfind("# ", 0) == 0) {
      current = line.substr(2);
      sections.push_back(current);
      expect_header = true;
      continue;
    }
    if (line.empty()) continue;
    const auto fields = csv_fields(line);
    if (expect_header) {
      columns = fields.size();
      expect_header = false;
    } else {
      EXPECT_EQ(fields.size(), columns) << current << ": " << line;
      ++rows;
    }
    tables[current].push_back(fields);
  }
  EXPECT_EQ(sections, (std::vector<std::string>{"scopes", "nodes", "cpwait", "causes", "waits"}));
  EXPECT_GT(rows, 15U);
  // Raw picoseconds, no bars, no indentation.
  const auto& scopes = tables["scopes"];
  EXPECT_EQ(scopes[0][0], "scope_id");
  const auto column = [&](const std::vector<std::vector<std::string>>& t, const std::string& name) {
    return static_cast<std::size_t>(std::find(t[0].begin(), t[0].end(), name) - t[0].begin());
  };
  EXPECT_EQ(scopes[1][column(scopes, "scope")], "program");
  EXPECT_EQ(scopes[1][column(scopes, "parent_id")], "");
  EXPECT_EQ(scopes[1][column(scopes, "inclusive_ps")], "3900000000");
  EXPECT_EQ(scopes[1][column(scopes, "inclusive_percent")], "100.0000");
  EXPECT_EQ(scopes[3][column(scopes, "scope")], "update");
  EXPECT_EQ(scopes[3][column(scopes, "depth")], "2");
  const auto& cpwait = tables["cpwait"];
  EXPECT_EQ(cpwait[1][column(cpwait, "time_ps")], "800000000");
  EXPECT_EQ(cpwait[1][column(cpwait, "syncdelay_ps")], "630000000");
  EXPECT_EQ(cpwait[1][column(cpwait, "location")], "phase loop (workloads/phases.cpp:10-50)");
  EXPECT_THAT(out, Not(HasSubstr("█")));
}

TEST(ReportCsv, SingleViewHasNoSectionLine) {
  const std::string out = render(make_fixture(), {ReportView::Nodes}, ReportFormat::Csv);
  EXPECT_THAT(
      out, StartsWith("node,finish_ps,vs_mean_percent,comp_ps,extra_ps,wait_ps,prste_ps,cpcomp_ps,cpwait_ps,"
                      "cpidle_ps\n0,1900000000,-2.5641,"));
  EXPECT_EQ(lines_of(out).size(), 3U);
}

TEST(ReportJson, OneObjectWithAKeyPerView) {
  const auto j = nlohmann::json::parse(render(make_fixture(), all_views(), ReportFormat::Json));
  for (const char* key : {"run", "scopes", "nodes", "cpwait", "causes", "waits"})
    EXPECT_TRUE(j.contains(key)) << key;
  EXPECT_EQ(j["run"]["seed"].get<std::uint64_t>(), 0xFFFF'FFFF'FFFF'FFF0ull);
  EXPECT_EQ(j["run"]["parameters"]["n"], 64);
  EXPECT_EQ(j["run"]["status"], "complete");
  EXPECT_EQ(j["scopes"]["rows"].size(), 4U);
  EXPECT_EQ(j["scopes"]["rows"][0]["inclusive_ps"], us(3900));
  EXPECT_TRUE(j["scopes"]["rows"][0]["parent_id"].is_null());
  EXPECT_EQ(j["scopes"]["rows"][2]["scope"], "update");
  EXPECT_EQ(j["scopes"]["total_pp_ps"], us(3900));
  EXPECT_EQ(j["nodes"]["imbalance"]["slowest_node"], 1);
  EXPECT_EQ(j["nodes"]["imbalance"]["mean_finish_ps"], us(1950));
  EXPECT_EQ(j["cpwait"]["rows"][0]["operation"], "barrier");
  EXPECT_EQ(j["cpwait"]["rows"][0]["count"], 2);
  EXPECT_EQ(j["cpwait"]["rows"][3]["category"], "CPWait");
  EXPECT_DOUBLE_EQ(j["cpwait"]["rows"][3]["cumulative_percent"].get<double>(), 100.0);
  EXPECT_EQ(j["causes"]["rows"][0]["cause_node"], 0);
  EXPECT_EQ(j["causes"]["rows"][0]["sync_delay_ps"], us(500));
  EXPECT_EQ(j["waits"]["rows"][0]["id"], 2);
  EXPECT_EQ(j["waits"]["rows"][1]["operation"], "page fault");
  EXPECT_TRUE(j["waits"]["rows"][1]["cause_node"].is_null());
  EXPECT_EQ(j["waits"]["rows"][1]["cprcomp_ps"], us(70));
}

TEST(ReportJson, EmptyRun) {
  RunData d;
  const auto j = nlohmann::json::parse(render(d, all_views(), ReportFormat::Json));
  EXPECT_TRUE(j["scopes"]["rows"].empty());
  EXPECT_THAT(render(d, all_views(), ReportFormat::Text), HasSubstr("(none)"));
}

TEST(Report, UnknownScopesAndParentCyclesStillShow) {
  RunData d = make_fixture();
  d.profile.push_back({0, 42, Category::Comp, "none", us(100), 1});  // a scope nobody described
  d.scopes[3].parent = 3;                                            // its own parent
  const auto j = nlohmann::json::parse(render(d, {ReportView::Scopes}, ReportFormat::Json));
  std::vector<std::string> names;
  for (const auto& r : j["scopes"]["rows"]) names.push_back(r["scope"]);
  EXPECT_THAT(names,
              ::testing::UnorderedElementsAre("program", "phase loop", "update", "verify", "scope 42"));
}

TEST(ReportViews, NamesRoundTrip) {
  for (auto v : all_views()) EXPECT_EQ(view_from_string(to_string(v)), v);
  EXPECT_FALSE(view_from_string("everything"));
  EXPECT_EQ(format_from_string("csv"), ReportFormat::Csv);
  EXPECT_FALSE(format_from_string("xml"));
}

RunData with_races() {
  RunData d = make_fixture();
  d.races_checked = true;
  d.races = {{1,
              "heap",
              4100,
              0x5a0000001004ULL,
              3,
              {0, true, "examples/racy.c", 12, 1, 4, {4, 1}},
              {1, false, "examples/racy.c", 15, 1, 2, {1, 2}}}};
  return d;
}

TEST(ReportRaces, EachRaceWithBothSidesAndTheHeaderCountsThem) {
  const std::string out = render(with_races(), {ReportView::Races}, ReportFormat::Text);
  EXPECT_THAT(out, HasSubstr("data races   1 (see the races view)"));
  EXPECT_THAT(out, HasSubstr("'heap' byte 4100 (address 0x5a0000001004)"));
  EXPECT_THAT(out, HasSubstr("examples/racy.c:12"));
  EXPECT_THAT(out, HasSubstr("examples/racy.c:15"));
  const auto j = nlohmann::json::parse(render(with_races(), {ReportView::Races}, ReportFormat::Json));
  ASSERT_EQ(j["races"]["rows"].size(), 1u);
  EXPECT_EQ(j["races"]["rows"][0]["first_vector_time"], "[4,1]");
  EXPECT_EQ(j["races"]["rows"][0]["second_access"], "read");
  EXPECT_EQ(j["races"]["rows"][0]["occurrences"], 3);
  EXPECT_EQ(j["run"]["races"], 1);
}

TEST(ReportRaces, AllViewsShowRacesOnlyForRunsThatLookedForThem) {
  EXPECT_THAT(render(make_fixture(), all_views(), ReportFormat::Text), Not(HasSubstr("Data races")));
  EXPECT_THAT(render(with_races(), all_views(), ReportFormat::Text), HasSubstr("Data races"));
  EXPECT_THAT(render(make_fixture(), {ReportView::Races}, ReportFormat::Text),
              HasSubstr("race detection was off for this run"));
  RunData clean = with_races();
  clean.races.clear();
  EXPECT_THAT(render(clean, {ReportView::Races}, ReportFormat::Text), HasSubstr("no data races found"));
}

}  // namespace
}  // namespace ncp2::carnival
