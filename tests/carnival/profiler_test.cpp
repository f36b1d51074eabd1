// The profiler's invariants on real runs (both machines, several workloads): every picosecond in
// exactly one category, waits that sum exactly, summary = instances, causes attributed.
#include <atomic>
#include <map>
#include <set>
#include <tuple>

#include <fmt/format.h>

#include <gtest/gtest.h>

#include "carnival/profiler.hpp"
#include "carnival/scope.hpp"
#include "run/runner.hpp"
#include "tests/dsm/harness.hpp"
#include "workloads/registry.hpp"

namespace ncp2::carnival {
namespace {
using namespace emu::literals;

// Per scope, the CP categories describe what the CP did while the PP was in that scope: they sum
// to the scope's PP time; scope 0 also gets the CP's time after the node's PP finished.
void check_cp_by_scope(const RunData& d, bool has_cp) {
  if (!has_cp) return;
  std::map<std::pair<int, std::uint32_t>, std::int64_t> pp, cp;
  for (const auto& c : d.profile) (is_pp_category(c.category) ? pp : cp)[{c.node, c.scope}] += c.time_ps;
  for (const auto& n : d.nodes) {
    std::set<std::uint32_t> scopes;
    for (const auto& c : d.profile)
      if (c.node == n.node) scopes.insert(c.scope);
    for (const std::uint32_t s : scopes) {
      const std::int64_t after_end = s == 0 ? d.run.virtual_time_ps - n.finish_ps : 0;
      const std::pair<int, std::uint32_t> key{n.node, s};
      EXPECT_EQ(cp[key], pp[key] + after_end) << "node " << n.node << ", scope " << s;
    }
  }
}

void check_invariants(const RunData& d, bool has_cp, const std::string& what) {
  SCOPED_TRACE(what);
  std::map<int, std::int64_t> pp_sum, cp_sum, wait_profile, wait_instances;
  for (const auto& c : d.profile) {
    ASSERT_GE(c.time_ps, 0);
    if (is_pp_category(c.category))
      pp_sum[c.node] += c.time_ps;
    else
      cp_sum[c.node] += c.time_ps;
    if (c.category == Category::Wait) wait_profile[c.node] += c.time_ps;
  }
  ASSERT_EQ(d.nodes.size(), static_cast<std::size_t>(d.run.nodes));
  for (const auto& n : d.nodes) {
    EXPECT_EQ(pp_sum[n.node], n.finish_ps) << "PP categories of node " << n.node << " vs its finish time";
    EXPECT_LE(n.finish_ps, d.run.virtual_time_ps);
    if (has_cp)
      EXPECT_EQ(cp_sum[n.node], d.run.virtual_time_ps) << "CP categories of node " << n.node;
    else
      EXPECT_EQ(cp_sum[n.node], 0);
  }
  ASSERT_EQ(d.waits_dropped, 0u);
  for (const auto& w : d.waits) {
    std::int64_t sum = 0;
    for (auto p : w.parts) {
      EXPECT_GE(p, 0);
      sum += p;
    }
    EXPECT_EQ(sum, w.duration_ps) << w.operation;
    wait_instances[w.node] += w.duration_ps;
    if (w.parts[static_cast<std::size_t>(WaitPart::SyncDelay)] > 0 && w.operation != "exit") {
      EXPECT_GE(w.cause_node, 0) << w.operation;
    }
  }
  for (const auto& n : d.nodes) EXPECT_EQ(wait_profile[n.node], wait_instances[n.node]) << "node " << n.node;
  check_cp_by_scope(d, has_cp);
  const auto recomputed = summarize(d.waits);
  ASSERT_EQ(recomputed.size(), d.wait_summary.size());
  for (std::size_t i = 0; i < recomputed.size(); ++i) {
    EXPECT_EQ(recomputed[i].count, d.wait_summary[i].count);
    EXPECT_EQ(recomputed[i].total_ps, d.wait_summary[i].total_ps);
    EXPECT_EQ(recomputed[i].parts, d.wait_summary[i].parts);
  }
}

TEST(Profiler, InvariantsHoldOnEveryWorkloadAndBothMachines) {
  for (const auto& w : workloads::all_workloads()) {
    for (auto kind : {emu::MachineKind::Ncp2, emu::MachineKind::TreadMarks}) {
      for (int nodes : {1, 3, 8}) {
        dsm::SystemConfig config = dsm::default_config(kind);
        config.machine.nodes = nodes;
        run::RunOptions options;
        options.profile = true;
        const auto params = w.resolve("small", {});
        const auto out = run::run_workload(config, w, params, 1, options);
        ASSERT_TRUE(out.ok()) << w.name << " " << out.diagnosis << out.verification;
        ASSERT_TRUE(out.profile.has_value());
        check_invariants(*out.profile, kind == emu::MachineKind::Ncp2,
                         fmt::format("{} on {} x{}", w.name, emu::to_string(kind), nodes));
        EXPECT_EQ(out.profile->run.virtual_time_ps, emu::to_ps(out.timed_end));
      }
    }
  }
}

TEST(Profiler, ProfilingDoesNotChangeTheRun) {
  const auto& w = workloads::find_workload("phases");
  for (auto kind : {emu::MachineKind::Ncp2, emu::MachineKind::TreadMarks}) {
    dsm::SystemConfig config = dsm::default_config(kind);
    config.machine.nodes = 4;
    const auto params = w.resolve("small", {});
    run::RunOptions on;
    on.profile = true;
    const auto a = run::run_workload(config, w, params, 3, on);
    const auto b = run::run_workload(config, w, params, 3, {});
    EXPECT_EQ(a.timed_end, b.timed_end);
    EXPECT_EQ(a.events, b.events);
    EXPECT_EQ(a.totals().messages, b.totals().messages);
  }
}

// The accounting on a second thread (the default) and on the emulation thread give the same data,
// row for row, for workloads with locks, barriers and many waits, on both machines.
TEST(Profiler, BackgroundAccountingGivesTheSameDataAsInline) {
  for (const char* name : {"phases", "tsp", "water"}) {
    const auto& w = workloads::find_workload(name);
    for (auto kind : {emu::MachineKind::Ncp2, emu::MachineKind::TreadMarks}) {
      SCOPED_TRACE(fmt::format("{} on {}", name, emu::to_string(kind)));
      dsm::SystemConfig config = dsm::default_config(kind);
      config.machine.nodes = 4;
      const auto params = w.resolve("small", {});
      run::RunOptions background, inline_;
      background.profile = inline_.profile = true;
      background.profiler.background = true;
      inline_.profiler.background = false;
      const auto a = run::run_workload(config, w, params, 1, background);
      const auto b = run::run_workload(config, w, params, 1, inline_);
      ASSERT_TRUE(a.profile && b.profile);
      const RunData& x = *a.profile;
      const RunData& y = *b.profile;
      ASSERT_FALSE(x.waits.empty());
      ASSERT_EQ(x.profile.size(), y.profile.size());
      for (std::size_t i = 0; i < x.profile.size(); ++i) {
        const auto& c = x.profile[i];
        const auto& d = y.profile[i];
        EXPECT_TRUE(std::tie(c.node, c.scope, c.category, c.operation, c.time_ps, c.count) ==
                    std::tie(d.node, d.scope, d.category, d.operation, d.time_ps, d.count))
            << "profile cell " << i;
      }
      ASSERT_EQ(x.waits.size(), y.waits.size());
      for (std::size_t i = 0; i < x.waits.size(); ++i) {
        const auto& c = x.waits[i];
        const auto& d = y.waits[i];
        EXPECT_TRUE(std::tie(c.id, c.node, c.scope, c.operation, c.start_ps, c.duration_ps, c.parts,
                             c.cause_node, c.cause_scope, c.object, c.remote_node) ==
                    std::tie(d.id, d.node, d.scope, d.operation, d.start_ps, d.duration_ps, d.parts,
                             d.cause_node, d.cause_scope, d.object, d.remote_node))
            << "wait " << i;
      }
      ASSERT_EQ(x.wait_summary.size(), y.wait_summary.size());
      ASSERT_EQ(x.timeline.size(), y.timeline.size());
      for (std::size_t i = 0; i < x.timeline.size(); ++i)
        EXPECT_TRUE(std::tie(x.timeline[i].start_ps, x.timeline[i].end_ps, x.timeline[i].category) ==
                    std::tie(y.timeline[i].start_ps, y.timeline[i].end_ps, y.timeline[i].category))
            << "segment " << i;
      ASSERT_EQ(x.nodes.size(), y.nodes.size());
      for (std::size_t i = 0; i < x.nodes.size(); ++i) EXPECT_EQ(x.nodes[i].finish_ps, y.nodes[i].finish_ps);
      EXPECT_EQ(x.run.virtual_time_ps, y.run.virtual_time_ps);
    }
  }
}

// The scope of kind `line` that the typed API's calls at `line` put their time on, or null.
const Scope* line_scope(const RunData& d, std::int64_t id) {
  for (const auto& s : d.scopes)
    if (s.id == id && s.kind == "line") return &s;
  return nullptr;
}

// A barrier where one node is made slow inside a named scope: the others' delay goes to it, and
// to what it was doing: the line of its computation in that scope, not the barrier's.
TEST(Profiler, BarrierDelayIsAttributedToTheSlowNodeAndItsScope) {
  for (auto kind : {emu::MachineKind::Ncp2, emu::MachineKind::TreadMarks}) {
    dsm::testing::Harness h(dsm::testing::machine(kind, 4));
    Profiler profiler(h.dsm, h.cluster);
    std::uint32_t slow_scope = 0;
    int compute_line = 0;
    h.dsm.start([&](dsm::Process& p) {
      {
        CARNIVAL_SCOPE(p, "straggle");
        slow_scope = h.cluster.pp(p.node()).attribution().scope;
        compute_line = __LINE__ + 1;
        if (p.id() == 2) p.compute(2_ms);
        p.barrier(0);
      }
    });
    h.kernel.run();
    EXPECT_TRUE(profiler.stopped());  // by itself, at the last exit
    const RunData d = profiler.finish({});
    check_invariants(d, kind == emu::MachineKind::Ncp2, "straggler");
    int attributed = 0;
    for (const auto& w : d.waits) {
      if (w.operation != "barrier" || w.object != 0 || w.node == 2) continue;
      EXPECT_EQ(w.cause_node, 2);
      const Scope* late = line_scope(d, w.cause_scope);
      ASSERT_NE(late, nullptr) << "cause scope " << w.cause_scope << " is not a line";
      EXPECT_EQ(late->begin_line, compute_line);
      EXPECT_EQ(late->parent, static_cast<std::int64_t>(slow_scope));
      EXPECT_GT(w.parts[static_cast<std::size_t>(WaitPart::SyncDelay)], 1900'000'000);
      ++attributed;
    }
    EXPECT_EQ(attributed, 3);
    bool named = false;
    for (const auto& s : d.scopes)
      if (s.id == slow_scope) named = s.name == "straggle" && s.begin_line > 0 && s.end_line > s.begin_line;
    EXPECT_TRUE(named);
  }
}

TEST(Profiler, ComputeInAScopeIsCompAndProtocolCodeIsExtra) {
  dsm::testing::Harness h(dsm::testing::machine(emu::MachineKind::Ncp2, 2));
  Profiler profiler(h.dsm, h.cluster);
  std::uint32_t scope = 0;
  int compute_line = 0;
  h.dsm.start([&](dsm::Process& p) {
    CARNIVAL_SCOPE(p, "work");
    scope = h.cluster.pp(p.node()).attribution().scope;
    compute_line = __LINE__ + 1;
    p.compute(100_us);
  });
  h.kernel.run();
  EXPECT_TRUE(profiler.stopped());
  const RunData d = profiler.finish({});
  std::int64_t comp = 0, extra = 0;
  for (const auto& c : d.profile) {
    if (c.node != 1) continue;
    if (c.category == Category::Comp) {  // on the line of the compute call, in the scope
      const Scope* line = line_scope(d, c.scope);
      ASSERT_NE(line, nullptr);
      EXPECT_EQ(line->begin_line, compute_line);
      EXPECT_EQ(line->parent, static_cast<std::int64_t>(scope));
      comp += c.time_ps;
    }
    if (c.category == Category::Extra) extra += c.time_ps;
  }
  EXPECT_EQ(comp, emu::to_ps(100_us));
  EXPECT_GT(extra, 0);  // the exit barrier's protocol code
}

// A scope whose time is all in inner scopes (a loop around two blocks) has no profile cell of its
// own, yet it stays in the tree between the blocks and the function.
TEST(Profiler, ScopesWithoutOwnTimeStayInTheTree) {
  dsm::testing::Harness h(dsm::testing::machine(emu::MachineKind::TreadMarks, 2));
  Profiler profiler(h.dsm, h.cluster);
  h.dsm.start([&](dsm::Process& p) {
    CARNIVAL_SCOPE_KIND(p, "outer function", "function");
    p.compute(1_us);
    for (int i = 0; i < 2; ++i) {
      CARNIVAL_SCOPE_KIND(p, "timeless loop", "loop");
      {
        CARNIVAL_SCOPE(p, "first block");
        p.compute(5_us);
      }
      {
        CARNIVAL_SCOPE(p, "second block");
        p.compute(7_us);
      }
    }
  });
  h.kernel.run();
  const RunData d = profiler.finish({});
  std::map<std::string, const Scope*> by_name;
  for (const auto& s : d.scopes) by_name[s.name] = &s;
  ASSERT_TRUE(by_name.count("timeless loop")) << "the loop scope is missing from the tree";
  const Scope& loop = *by_name["timeless loop"];
  EXPECT_EQ(by_name["first block"]->parent, loop.id);
  EXPECT_EQ(by_name["second block"]->parent, loop.id);
  EXPECT_EQ(loop.parent, by_name["outer function"]->id);
  for (const auto& c : d.profile) EXPECT_NE(c.scope, loop.id) << "no time of its own";
}

}  // namespace
}  // namespace ncp2::carnival

namespace ncp2::carnival {
namespace {

// A workload that ends badly, to check the accounting of runs that do not complete.
workloads::Workload bad_workload(std::string name, std::function<void(dsm::Process&)> body) {
  struct Bad final : workloads::Instance {
    explicit Bad(std::function<void(dsm::Process&)> b) : body(std::move(b)) {}
    void run(dsm::Process& p) override { body(p); }
    void verify(dsm::Process& /*p*/) override {}
    std::function<void(dsm::Process&)> body;
  };
  workloads::Workload w;
  w.name = std::move(name);
  w.make = [body = std::move(body)](const workloads::Params&, int, std::uint64_t) {
    return std::make_unique<Bad>(body);
  };
  w.validate = [](const workloads::Params&, int) {};
  return w;
}

// What docs/schema.md promises for runs that stop early (status deadlock or failed): every
// category sums as in a complete run, no timeline segment lies past the run's end, the summary
// equals the instances, and the profile's Wait exceeds the instances' total by the waits still
// open when the run stopped (at most one per node, none longer than the run).
void check_stopped_run(const RunData& d, bool has_cp) {
  std::map<int, std::int64_t> pp_sum, cp_sum, wait_profile, wait_instances;
  for (const auto& c : d.profile) {
    (is_pp_category(c.category) ? pp_sum : cp_sum)[c.node] += c.time_ps;
    if (c.category == Category::Wait) wait_profile[c.node] += c.time_ps;
  }
  for (const auto& w : d.waits) wait_instances[w.node] += w.duration_ps;
  for (const auto& n : d.nodes) {
    EXPECT_EQ(pp_sum[n.node], n.finish_ps) << "node " << n.node;
    EXPECT_LE(n.finish_ps, d.run.virtual_time_ps);
    EXPECT_EQ(cp_sum[n.node], has_cp ? d.run.virtual_time_ps : 0) << "node " << n.node;
    EXPECT_GE(wait_profile[n.node], wait_instances[n.node]) << "node " << n.node;
    EXPECT_LE(wait_profile[n.node] - wait_instances[n.node], d.run.virtual_time_ps) << "node " << n.node;
  }
  for (const auto& s : d.timeline)
    EXPECT_LE(s.end_ps, d.run.virtual_time_ps) << "timeline of node " << s.node;
  check_cp_by_scope(d, has_cp);
  const auto recomputed = summarize(d.waits);
  ASSERT_EQ(recomputed.size(), d.wait_summary.size());
  for (std::size_t i = 0; i < recomputed.size(); ++i)
    EXPECT_EQ(recomputed[i].total_ps, d.wait_summary[i].total_ps);
}

TEST(Profiler, StoppedRunsKeepTheirDocumentedInvariants) {
  const auto deadlock = bad_workload("lock-order", [](dsm::Process& p) {
    p.compute_cycles(std::int64_t{1000} * (p.id() + 1));
    if (p.id() < 2) p.lock_acquire(1 + static_cast<std::uint32_t>(p.id()));
    p.barrier(1);
    if (p.id() < 2) p.lock_acquire(2 - static_cast<std::uint32_t>(p.id()));
  });
  const auto mismatch = bad_workload("barrier-mismatch", [](dsm::Process& p) {
    p.compute_cycles(std::int64_t{500} * (p.id() + 1));
    p.barrier(p.id() == 2 ? 7 : 1);
  });
  for (const auto* w : {&deadlock, &mismatch}) {
    for (auto kind : {emu::MachineKind::Ncp2, emu::MachineKind::TreadMarks}) {
      SCOPED_TRACE(fmt::format("{} on {}", w->name, emu::to_string(kind)));
      dsm::SystemConfig config = dsm::default_config(kind);
      config.machine.nodes = 3;
      run::RunOptions options;
      options.profile = true;
      const auto out = run::run_workload(config, *w, {}, 1, options);
      ASSERT_FALSE(out.ok());
      ASSERT_TRUE(out.profile.has_value());
      EXPECT_FALSE(out.profile->timeline.empty());
      check_stopped_run(*out.profile, kind == emu::MachineKind::Ncp2);
    }
  }
}

TEST(Profiler, InterruptedRunsKeepTheirDocumentedInvariants) {
  const auto& w = workloads::find_workload("phases");
  for (auto kind : {emu::MachineKind::Ncp2, emu::MachineKind::TreadMarks}) {
    SCOPED_TRACE(emu::to_string(kind));
    dsm::SystemConfig config = dsm::default_config(kind);
    config.machine.nodes = 4;
    const std::atomic<bool> stop{true};  // as if Ctrl-C came at once: the run stops at its first check
    run::RunOptions options;
    options.profile = true;
    options.stop_flag = &stop;
    const auto out = run::run_workload(config, w, w.resolve("small", {}), 1, options);
    ASSERT_EQ(out.status, run::RunStatus::Stopped);
    ASSERT_TRUE(out.profile.has_value());
    check_stopped_run(*out.profile, kind == emu::MachineKind::Ncp2);
  }
}

}  // namespace
}  // namespace ncp2::carnival

namespace ncp2::carnival {
namespace {

std::map<Category, std::int64_t> by_category(const RunData& d) {
  std::map<Category, std::int64_t> out;
  for (const auto& c : d.profile) out[c.category] += c.time_ps;
  return out;
}

// pp.separate_server (issue 43): a real node's server is a process beside its program, so what it
// serves is the program's time in what it was doing — as a real run records it — not Prste. The
// run is the same; the requests served move from Prste into Comp, Extra and Wait, and a wait no
// longer has its service taken out.
TEST(Profiler, ASeparateServerProfilesServiceAsWhatItInterrupted) {
  for (const char* name : {"tsp", "water", "phases"}) {
    const auto& w = workloads::find_workload(name);
    dsm::SystemConfig config = dsm::default_config(emu::MachineKind::TreadMarks);
    config.machine.nodes = 3;
    const auto params = w.resolve("small", {});
    run::RunOptions options;
    options.profile = true;
    const auto interrupt = run::run_workload(config, w, params, 1, options);
    dsm::apply_override(config, "pp.separate_server=1");
    const auto separate = run::run_workload(config, w, params, 1, options);
    ASSERT_TRUE(interrupt.ok() && separate.ok()) << name;
    SCOPED_TRACE(name);
    EXPECT_EQ(interrupt.timed_end, separate.timed_end) << "only the profile changes";
    check_invariants(*separate.profile, false, fmt::format("{} with a separate server", name));
    auto before = by_category(*interrupt.profile);
    auto after = by_category(*separate.profile);
    ASSERT_GT(before[Category::Prste], 0) << "the workload serves requests";
    EXPECT_LT(after[Category::Prste], before[Category::Prste] / 10) << "only an exited node's service stays";
    std::int64_t moved = 0;
    for (const Category c : {Category::Comp, Category::Extra, Category::Wait}) {
      EXPECT_GE(after[c], before[c]);
      moved += after[c] - before[c];
    }
    EXPECT_EQ(moved, before[Category::Prste] - after[Category::Prste]);
    EXPECT_GT(after[Category::Wait], before[Category::Wait]) << "service inside waits stays in them";
    ASSERT_EQ(interrupt.profile->waits.size(), separate.profile->waits.size());
    for (std::size_t i = 0; i < separate.profile->waits.size(); ++i)
      EXPECT_GE(separate.profile->waits[i].duration_ps, interrupt.profile->waits[i].duration_ps);
  }
}

}  // namespace
}  // namespace ncp2::carnival
