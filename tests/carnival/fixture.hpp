#pragma once
// A small synthetic run with round numbers, for the store, report and trace tests and for
// `carnival_fixture` (the CLI test's database). Times are given in microseconds and stored in
// picoseconds. The expected figures the tests check are derived in the comments.
#include <cstdint>
#include <string>
#include <vector>

#include "carnival/model.hpp"

namespace ncp2::carnival::testing {

inline constexpr std::int64_t us(double v) { return static_cast<std::int64_t>(v * 1'000'000); }

// PP time by scope (exclusive, us):           node 0                       node 1
//   0 program                                 Comp 100                     Comp 100
//   1 phase loop (child of 0)                 Comp 400, Wait 200           Comp 300, Wait 600
//   2 update (child of 1)                     Comp 600 Extra 100 Wait 300  Comp 600 Extra 100 Wait 200
//                                             Prste 50                     Prste 100
//   3 verify (child of 0)                     Comp 50                      Comp 100
// Inclusive, summed over nodes: update 2050, phase loop 3550, verify 150, program 3900 (= total).
// Waits (us): 1 barrier 200 (sync 130, cause node 1 in update), 2 barrier 600 (sync 500, cause
// node 0 in update), 3 page fault 300, 4 page fault 200, 5 CPWait page fault 50, 6 lock acquire
// 100 (sync 60, cause node 1 in phase loop). Total 1450.
namespace fixture_parts {

inline void add_run(RunData& d) {
  auto& r = d.run;
  r.workload = "phases";
  r.machine = "ncp2";
  r.nodes = 2;
  r.status = "complete";
  r.virtual_time_ps = us(2000);
  r.config = "[machine]\nkind = \"ncp2\"\nnodes = 2\n";
  r.parameters = R"({"n":64,"phases":2})";
  r.seed = 0xFFFF'FFFF'FFFF'FFF0ull;  // beyond INT64_MAX: stored as the same 64 bits
  r.started_at = "2024-01-02T03:04:05Z";
  r.wall_seconds = 0.125;
  r.verified = true;
  r.message = "sum matches, with a comma, and \"quotes\"";
  d.nodes = {{0, us(1900)}, {1, us(2000)}};
  d.sources = {{"workloads/phases.cpp", "// phases\nint main() {\n  return 0;\n}\n"}};
  d.scopes = {{0, -1, "program", "program", "workloads/phases.cpp", 1, 100},
              {1, 0, "phase loop", "loop", "workloads/phases.cpp", 10, 50},
              {2, 1, "update", "function", "workloads/phases.cpp", 20, 30},
              {3, 0, "verify", "verify", "workloads/phases.cpp", 60, 70}};
}

inline void add_profile(RunData& d) {
  using C = Category;
  auto cell = [&](int node, std::uint32_t scope, C c, const char* op, double t, std::uint64_t n) {
    d.profile.push_back({node, scope, c, op, us(t), n});
  };
  cell(0, 0, C::Comp, "none", 100, 1);
  cell(0, 1, C::Comp, "none", 400, 2);
  cell(0, 1, C::Wait, "barrier", 200, 1);
  cell(0, 2, C::Comp, "none", 600, 3);
  cell(0, 2, C::Extra, "page fault", 100, 4);
  cell(0, 2, C::Wait, "page fault", 300, 1);
  cell(0, 2, C::Prste, "diff request", 50, 2);
  cell(0, 3, C::Comp, "none", 50, 1);
  cell(1, 0, C::Comp, "none", 100, 1);
  cell(1, 1, C::Comp, "none", 300, 2);
  cell(1, 1, C::Wait, "barrier", 600, 1);
  cell(1, 2, C::Comp, "none", 600, 3);
  cell(1, 2, C::Extra, "page fault", 100, 4);
  cell(1, 2, C::Wait, "page fault", 200, 1);
  cell(1, 2, C::Prste, "diff request", 100, 2);
  cell(1, 3, C::Comp, "none", 100, 1);
  cell(0, 1, C::CPComp, "barrier", 300, 5);
  cell(0, 2, C::CPComp, "page fault", 200, 5);
  cell(0, 0, C::CPIdle, "none", 1300, 9);
  cell(1, 2, C::CPComp, "page fault", 400, 5);
  cell(1, 2, C::CPWait, "page fault", 50, 1);
  cell(1, 0, C::CPIdle, "none", 1450, 9);
}

inline void add_waits(RunData& d) {
  // parts: CPLWait CPLComp CPComm CPRWait CPRComp PPRWait PPRComp PPLWait SyncDelay
  auto wait = [&](std::uint64_t id, int node, std::uint32_t scope, const char* op, const char* kind,
                  double start, std::array<double, kWaitParts> parts, int cause_node,
                  std::int64_t cause_scope, std::uint64_t object, int remote) {
    WaitRow w;
    w.id = id;
    w.node = node;
    w.scope = scope;
    w.operation = op;
    w.kind = kind;
    w.start_ps = us(start);
    for (std::size_t i = 0; i < kWaitParts; ++i) {
      w.parts[i] = us(parts[i]);
      w.duration_ps += w.parts[i];
    }
    w.cause_node = cause_node;
    w.cause_scope = cause_scope;
    w.object = object;
    w.remote_node = remote;
    d.waits.push_back(w);
  };
  wait(1, 0, 1, "barrier", "Wait", 500, {10, 20, 10, 5, 15, 0, 0, 10, 130}, 1, 2, 0, 1);
  wait(2, 1, 1, "barrier", "Wait", 1300, {20, 30, 20, 0, 10, 0, 0, 20, 500}, 0, 2, 0, 0);
  wait(3, 0, 2, "page fault", "Wait", 800, {30, 60, 80, 40, 70, 0, 0, 20, 0}, -1, -1, 12, 1);
  wait(4, 1, 2, "page fault", "Wait", 900, {20, 40, 60, 20, 50, 0, 0, 10, 0}, -1, -1,
       0xFFFF'FFFF'0000'0001ull, 0);
  wait(5, 1, 2, "page fault", "CPWait", 950, {0, 0, 0, 0, 0, 20, 30, 0, 0}, -1, -1, 13, -1);
  wait(6, 0, 1, "lock acquire", "Wait", 1150, {0, 0, 40, 0, 0, 0, 0, 0, 60}, 1, 1, 3, 1);
  d.wait_summary = summarize(d.waits);
}

inline void add_timeline(RunData& d) {
  using C = Category;
  auto seg = [&](int node, bool cp, C c, const char* op, std::uint32_t scope, double from, double to) {
    d.timeline.push_back({node, cp, c, op, scope, us(from), us(to)});
  };
  seg(0, false, C::Comp, "none", 1, 0, 500);
  seg(0, false, C::Wait, "barrier", 1, 500, 700);
  seg(0, false, C::Comp, "none", 2, 700, 800);
  seg(0, false, C::Wait, "page fault", 2, 800, 1100);
  seg(0, false, C::Extra, "page fault", 1, 1100, 1300);  // crosses wait 6 [1150, 1250): 3 slices
  seg(0, true, C::CPIdle, "none", 0, 0, 510);
  seg(0, true, C::CPComp, "barrier", 1, 510, 530);
  seg(0, true, C::CPIdle, "none", 0, 530, 2000);
  seg(1, false, C::Comp, "none", 1, 0, 1300);
  seg(1, false, C::Wait, "barrier", 1, 1300, 1900);
  seg(1, true, C::CPIdle, "none", 0, 0, 2000);
}

}  // namespace fixture_parts

inline RunData make_fixture() {
  RunData d;
  fixture_parts::add_run(d);
  fixture_parts::add_profile(d);
  fixture_parts::add_waits(d);
  fixture_parts::add_timeline(d);
  return d;
}

// A larger run: `waits` wait rows spread over the fixture's scopes, and as many timeline segments.
inline RunData make_large(std::size_t waits) {
  RunData d = make_fixture();
  d.waits.clear();
  d.timeline.clear();
  for (std::size_t i = 0; i < waits; ++i) {
    WaitRow w;
    w.id = i + 1;
    w.node = static_cast<int>(i % 2);
    w.scope = static_cast<std::uint32_t>(1 + i % 3);
    w.operation = i % 3 == 0 ? "barrier" : "page fault";
    w.start_ps = static_cast<std::int64_t>(i) * 1000;
    for (std::size_t p = 0; p < kWaitParts; ++p) w.parts[p] = static_cast<std::int64_t>((i + p) % 7) * 10;
    for (auto p : w.parts) w.duration_ps += p;
    if (i % 3 == 0) {  // barrier waits name their cause; page faults have none (NULL in the file)
      w.cause_node = 1 - w.node;
      w.cause_scope = 1;
    }
    w.remote_node = 1 - w.node;
    w.object = i;
    d.waits.push_back(w);
    d.timeline.push_back({w.node, false, Category::Comp, "none", w.scope, w.start_ps, w.start_ps + 500});
  }
  d.wait_summary = summarize(d.waits);
  return d;
}

}  // namespace ncp2::carnival::testing
