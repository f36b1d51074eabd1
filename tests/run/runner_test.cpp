// The runner: failures become outcomes (never crashes), statistics cover the timed region, and
// the statistics JSON has its keys and laws.
#include <array>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include <unistd.h>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "run/run_history.hpp"
#include "run/runner.hpp"
#include "run/stats_json.hpp"
#include "tests/workloads/custom_workload.hpp"
#include "workloads/registry.hpp"

namespace ncp2::run {
namespace {

using workloads::testing::custom;
using workloads::testing::Lambdas;
using workloads::testing::machine;

constexpr std::array kBoth = {emu::MachineKind::Ncp2, emu::MachineKind::TreadMarks};

// The summary's host line (issue 21 goal 6: memory per emulated node).
TEST(Runner, HostUsageStatesPeakMemoryPerNode) {
  EXPECT_EQ(host_usage(1.5, std::uint64_t{4} << 20, 16384),
            "1.50 s wall; peak RSS 4096 MiB, 256 KiB per node");
  EXPECT_EQ(host_usage(0.004, 20480, 1), "0.00 s wall; peak RSS 20 MiB, 20480 KiB per node");
  EXPECT_EQ(host_usage(0, 0, 0), "0.00 s wall; peak RSS 0 MiB, 0 KiB per node");
  const std::uint64_t before = peak_rss_kib();
  EXPECT_GT(before, 0u);
  const Workload& w = find_workload("barrier");
  const RunOutcome o = run_workload(machine(emu::MachineKind::Ncp2, 4), w, w.resolve("small", {}), 1);
  ASSERT_TRUE(o.ok()) << o.diagnosis;
  EXPECT_GE(o.peak_rss_kib, before);  // a peak: it never goes down
  EXPECT_LE(o.peak_rss_kib, peak_rss_kib());
}

TEST(Runner, DsmErrorBecomesAFailedOutcome) {
  for (auto kind : kBoth) {
    const Workload w = custom(
        [](dsm::Process& p, Lambdas& self) {
          self.array = p.alloc<std::int64_t>("a", 16);
          if (p.id() == 1) (void)p.view(self.array).get(16);  // out of range
        },
        [](dsm::Process&, Lambdas& self) { self.set(true, "unreachable"); });
    const RunOutcome o = run_workload(machine(kind, 3), w, w.defaults(), 1);
    EXPECT_EQ(o.status, RunStatus::Error);
    EXPECT_NE(o.diagnosis.find("out of range"), std::string::npos) << o.diagnosis;
    EXPECT_FALSE(o.verified);
    EXPECT_FALSE(o.ok());
    EXPECT_EQ(o.node_stats.size(), 3u);
  }
}

TEST(Runner, WorkloadErrorAtRunTimeBecomesAFailedOutcome) {
  const Workload w = custom(
      [](dsm::Process& p, Lambdas&) {
        p.barrier(0);
        if (p.id() == 0) throw WorkloadError("node 0 gave up");
      },
      [](dsm::Process&, Lambdas&) {});
  const RunOutcome o = run_workload(machine(emu::MachineKind::Ncp2, 2), w, w.defaults(), 1);
  EXPECT_EQ(o.status, RunStatus::Error);
  EXPECT_EQ(o.diagnosis, "node 0 gave up");
}

TEST(Runner, AnyOtherExceptionOfTheWorkloadBecomesAFailedOutcome) {
  const Workload w = custom(
      [](dsm::Process& p, Lambdas&) { (void)std::vector<int>(2).at(static_cast<std::size_t>(p.id()) + 5); },
      [](dsm::Process&, Lambdas&) {});
  const RunOutcome o = run_workload(machine(emu::MachineKind::Ncp2, 2), w, w.defaults(), 1);
  EXPECT_EQ(o.status, RunStatus::Error);
  EXPECT_NE(o.diagnosis.find("unexpected error"), std::string::npos) << o.diagnosis;
}

TEST(Runner, DeadlockIsReportedWithItsDiagnosis) {
  for (auto kind : kBoth) {
    const Workload w = custom(
        [](dsm::Process& p, Lambdas&) {
          if (p.id() < 2) p.lock_acquire(1);  // never released: the second acquirer waits forever
        },
        [](dsm::Process&, Lambdas& self) { self.set(true, "unreachable"); });
    const RunOutcome o = run_workload(machine(kind, 3), w, w.defaults(), 1);
    EXPECT_EQ(o.status, RunStatus::Deadlock);
    EXPECT_NE(o.diagnosis.find("lock 1"), std::string::npos) << o.diagnosis;
    EXPECT_NE(o.diagnosis.find("the exit barrier"), std::string::npos) << o.diagnosis;
    EXPECT_FALSE(o.verified);
    EXPECT_FALSE(o.ok());
  }
}

TEST(Runner, BarrierMismatchIsAnError) {
  for (auto kind : kBoth) {
    const Workload w = custom(
        [](dsm::Process& p, Lambdas&) {
          if (p.id() == 1) p.barrier(3);  // the others go straight to the exit barrier
        },
        [](dsm::Process&, Lambdas& self) { self.set(true, "unreachable"); });
    const RunOutcome o = run_workload(machine(kind, 3), w, w.defaults(), 1);
    EXPECT_EQ(o.status, RunStatus::Error);
    EXPECT_NE(o.diagnosis.find("barrier mismatch"), std::string::npos) << o.diagnosis;
    EXPECT_FALSE(o.ok());
  }
}

TEST(Runner, FailedVerificationIsNotOk) {
  const Workload w = custom([](dsm::Process&, Lambdas&) {},
                            [](dsm::Process& p, Lambdas& self) {
                              if (p.id() == 0) self.set(false, "wrong on purpose");
                            });
  const RunOutcome o = run_workload(machine(emu::MachineKind::TreadMarks, 2), w, w.defaults(), 1);
  EXPECT_EQ(o.status, RunStatus::Completed);
  EXPECT_FALSE(o.verified);
  EXPECT_EQ(o.verification, "wrong on purpose");
  EXPECT_FALSE(o.ok());
}

TEST(Runner, ImpossibleParametersOrConfigurationAreInvalid) {
  const Workload& phases = find_workload("phases");
  Params p = phases.resolve("small", std::vector<std::string>{"n=3"});
  RunOutcome o = run_workload(machine(emu::MachineKind::Ncp2, 4), phases, p, 1);
  EXPECT_EQ(o.status, RunStatus::Invalid);
  EXPECT_NE(o.diagnosis.find("n=3 < nodes=4"), std::string::npos) << o.diagnosis;

  dsm::SystemConfig bad = machine(emu::MachineKind::Ncp2, 4);
  bad.network.link_bandwidth = 0;
  o = run_workload(bad, phases, phases.resolve("small", {}), 1);
  EXPECT_EQ(o.status, RunStatus::Invalid);
  EXPECT_NE(o.diagnosis.find("configuration"), std::string::npos) << o.diagnosis;
}

TEST(Runner, VerificationTrafficStaysOutOfTheStatistics) {
  for (auto kind : kBoth) {
    // Same body; one verification reads node 2's page through the DSM, the other reads nothing.
    auto body = [](dsm::Process& p, Lambdas& self) {
      self.array = p.alloc<std::int64_t>("a", 4096);  // 8 pages
      if (p.id() == 2) p.view(self.array).set(3000, 42);
    };
    const Workload reading = custom(body, [](dsm::Process& p, Lambdas& self) {
      if (p.id() == 0) self.set(p.view(self.array).get(3000) == 42, "read");
    });
    const Workload idle = custom(body, [](dsm::Process& p, Lambdas& self) {
      if (p.id() == 0) self.set(true, "idle");
    });
    const RunOutcome a = run_workload(machine(kind, 4), reading, reading.defaults(), 1);
    const RunOutcome b = run_workload(machine(kind, 4), idle, idle.defaults(), 1);
    ASSERT_TRUE(a.ok()) << a.diagnosis << a.verification;
    ASSERT_TRUE(b.ok()) << b.diagnosis << b.verification;
    EXPECT_GT(a.end_time, b.end_time);  // the verification's fetch took time...
    EXPECT_EQ(a.timed_end, b.timed_end);
    EXPECT_EQ(stats_json(a)["totals"], stats_json(b)["totals"]);  // ...but is not counted
    EXPECT_EQ(a.network_messages, b.network_messages);
  }
}

TEST(Runner, ProgressReportsAdvanceAndDoNotChangeTheRun) {
  const Workload& w = find_workload("phases");
  const Params params = w.resolve("small", std::vector<std::string>{"phases=200"});
  std::vector<RunProgress> reports;
  RunOptions options;
  options.progress = [&reports](const RunProgress& p) { reports.push_back(p); };
  options.progress_interval = std::chrono::milliseconds(0);  // every poll
  const RunOutcome watched = run_workload(machine(emu::MachineKind::Ncp2, 4), w, params, 1, options);
  const RunOutcome plain = run_workload(machine(emu::MachineKind::Ncp2, 4), w, params, 1);
  ASSERT_TRUE(watched.ok()) << watched.diagnosis;
  ASSERT_GE(reports.size(), 2u);
  for (std::size_t i = 1; i < reports.size(); ++i) {
    EXPECT_GE(reports[i].now, reports[i - 1].now);
    EXPECT_GE(reports[i].barrier_episodes, reports[i - 1].barrier_episodes);
    EXPECT_GT(reports[i].events, reports[i - 1].events);
  }
  EXPECT_LE(reports.back().now, watched.end_time);
  EXPECT_LE(reports.back().barrier_episodes, watched.barrier_episodes);
  EXPECT_GT(reports.back().barrier_episodes, 0u);
  EXPECT_EQ(watched.timed_end, plain.timed_end);  // watching changes nothing
  EXPECT_EQ(watched.events, plain.events);
}

TEST(RunHistory, KeyIgnoresTheNodeCountOnly) {
  const Workload& w = find_workload("phases");
  const Params small = w.resolve("small", {});
  const Params other = w.resolve("small", std::vector<std::string>{"phases=5"});
  dsm::SystemConfig four = machine(emu::MachineKind::Ncp2, 4);
  dsm::SystemConfig eight = machine(emu::MachineKind::Ncp2, 8);
  EXPECT_EQ(history_key("phases", small, 1, four), history_key("phases", small, 1, eight));
  EXPECT_NE(history_key("phases", small, 1, four), history_key("phases", small, 2, four));
  EXPECT_NE(history_key("phases", small, 1, four), history_key("phases", other, 1, four));
  EXPECT_NE(history_key("phases", small, 1, four),
            history_key("phases", small, 1, machine(emu::MachineKind::TreadMarks, 4)));
  eight.network.link_latency = emu::nanoseconds(200);
  EXPECT_NE(history_key("phases", small, 1, four), history_key("phases", small, 1, eight));
}

TEST(RunHistory, FindsTheLatestEntryAndSkipsDamagedLines) {
  const auto file = std::filesystem::temp_directory_path() /
                    ("ncp2-history-test-" + std::to_string(::getpid()) + "/history.jsonl");
  std::filesystem::remove_all(file.parent_path());
  const RunHistory history(file);
  EXPECT_FALSE(history.find("k", 1));
  ASSERT_TRUE(history.record({"k", 1, 1000, 3, 10, 0.1}));
  ASSERT_TRUE(history.record({"k", 4, 400, 3, 40, 0.1}));
  {
    std::ofstream damage(file, std::ios::app);
    damage << "{not json\n{\"key\": \"k\", \"nodes\": 1}\n";
  }
  ASSERT_TRUE(history.record({"k", 1, 900, 3, 10, 0.1}));
  ASSERT_TRUE(history.record({"other", 1, 5, 1, 1, 0.1}));
  const auto one = history.find("k", 1);
  ASSERT_TRUE(one);
  EXPECT_EQ(one->virtual_ps, 900);
  ASSERT_TRUE(history.find("k", 4));
  EXPECT_EQ(history.find("k", 4)->virtual_ps, 400);
  EXPECT_FALSE(history.find("k", 8));
  EXPECT_FALSE(RunHistory(std::nullopt).find("k", 1));
  EXPECT_FALSE(RunHistory(std::nullopt).record({"k", 1, 1, 1, 1, 0}));
  std::filesystem::remove_all(file.parent_path());
}

TEST(StatsJson, HasTheKeysAndTotalsAreTheSumOfTheNodes) {
  for (const char* name : {"counter", "phases", "false-sharing"}) {
    const Workload& w = find_workload(name);
    const RunOutcome o = run_workload(machine(emu::MachineKind::Ncp2, 4), w, w.resolve("small", {}), 3);
    ASSERT_TRUE(o.ok());
    // Through text, as a reader of the file gets it.
    const nlohmann::json j = nlohmann::json::parse(stats_json(o).dump());
    for (const char* key : {"workload", "parameters", "seed", "machine", "nodes", "status", "verified",
                            "virtual_time_ps", "totals", "messages_by_purpose", "per_node", "network"})
      EXPECT_TRUE(j.contains(key)) << key;
    EXPECT_EQ(j["workload"], name);
    EXPECT_EQ(j["machine"], "ncp2");
    EXPECT_EQ(j["nodes"], 4);
    EXPECT_EQ(j["seed"], 3);
    EXPECT_EQ(j["status"], "completed");
    EXPECT_EQ(j["verified"], true);
    EXPECT_EQ(j["virtual_time_ps"], emu::to_ps(o.timed_end));
    EXPECT_EQ(j["parameters"].size(), w.parameters.size());
    const std::array counters = {"messages",      "bytes",    "page_faults",   "page_requests",
                                 "diff_requests", "twins",    "diffs_created", "diffs_applied",
                                 "lock_acquires", "barriers", "interrupts"};
    const std::array purposes = {"page_request", "page_reply",      "diff_request",
                                 "diff_reply",   "lock_request",    "lock_forward",
                                 "lock_grant",   "barrier_arrival", "barrier_release"};
    ASSERT_EQ(j["per_node"].size(), 4u);
    for (const char* c : counters) {
      ASSERT_TRUE(j["totals"].contains(c)) << c;
      std::uint64_t sum = 0;
      for (const auto& n : j["per_node"]) {
        ASSERT_TRUE(n.contains(c)) << c;
        sum += n[c].get<std::uint64_t>();
      }
      if (std::string(c) == "barriers") {
        EXPECT_EQ(j["totals"][c].get<std::uint64_t>(), o.barrier_episodes);  // episodes, counted once
        EXPECT_EQ(sum, 4 * o.barrier_episodes);
      } else {
        EXPECT_EQ(j["totals"][c].get<std::uint64_t>(), sum) << name << " " << c;
      }
    }
    std::uint64_t by_purpose = 0;
    for (const char* p : purposes) {
      ASSERT_TRUE(j["messages_by_purpose"].contains(p)) << p;
      std::uint64_t sum = 0;
      for (const auto& n : j["per_node"]) sum += n["messages_by_purpose"][p].get<std::uint64_t>();
      EXPECT_EQ(j["messages_by_purpose"][p].get<std::uint64_t>(), sum) << p;
      by_purpose += sum;
    }
    EXPECT_EQ(by_purpose, j["totals"]["messages"].get<std::uint64_t>());
    for (std::size_t i = 0; i < 4; ++i) EXPECT_EQ(j["per_node"][i]["node"], i);
  }
}

TEST(StatsJson, WorkloadListHasEveryWorkloadWithItsParametersAndPresets) {
  const nlohmann::json j = nlohmann::json::parse(workloads_json().dump());
  ASSERT_TRUE(j.is_array());
  ASSERT_EQ(j.size(), all_workloads().size());
  for (const auto& w : j) {
    for (const char* key : {"name", "description", "parameters", "presets"})
      EXPECT_TRUE(w.contains(key)) << key;
    for (const auto& p : w["parameters"])
      for (const char* key : {"name", "type", "default", "description"}) EXPECT_TRUE(p.contains(key)) << key;
    EXPECT_TRUE(w["presets"].contains("small"));
    EXPECT_TRUE(w["presets"].contains("paper"));
  }
  EXPECT_EQ(j[0]["name"], "counter");
  EXPECT_EQ(j[0]["parameters"][0]["type"], "int");
}

}  // namespace
}  // namespace ncp2::run
