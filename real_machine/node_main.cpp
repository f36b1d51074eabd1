// ncp2-node: one node of a real run, started by mpirun on every rank (`ncp2 run ./prog --machine
// real` builds the command; docs/real-machine.md). Runs the node's agent, then node 0 gathers the
// records and writes the database. Exit status (node 0's; the others exit 0): 0 verified, 1 the
// run failed or did not verify (a crash, a misuse, a node exiting non-zero), 3 it deadlocked, 5 it
// stopped at --max-wall (the codes of `ncp2 run`).
#include <mpi.h>

#include <chrono>
#include <cstdio>
#include <ctime>
#include <iostream>

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include "carnival/exit_codes.hpp"
#include "carnival/store_error.hpp"
#include "real_machine/agent.hpp"
#include "real_machine/node_clocks.hpp"
#include "real_machine/results.hpp"

namespace {

using namespace ncp2;

struct NodeOptions {
  real::AgentOptions agent;
  std::string name;  // empty: the program's path
  std::string db;
  bool force = false;
  std::string started_at;
  std::string config;
  int clock_exchanges = 200;
  std::size_t max_wait_rows = 5'000'000;
  std::size_t max_timeline = 1'000'000;
  bool status_line = false;
};

int parse(int argc, char** argv, NodeOptions& o) {
  CLI::App app{
      "One node of a real run: started by mpirun for `ncp2 run PROGRAM --machine real` (not by hand)",
      "ncp2-node"};
  std::size_t heap_mb = 64;
  app.add_option("--program", o.agent.program, "the TreadMarks-API program")->required();
  app.add_option("--name", o.name, "the program as the user named it (the run's workload and root scope)");
  app.add_option("--heap-mb", heap_mb, "the shared heap, MiB")->check(CLI::Range(1, 1 << 20));
  app.add_option("--sample-instructions", o.agent.sample_instructions,
                 "instructions between samples (0: none)");
  std::string protocol = lrc::protocol_argument(o.agent.protocol);
  app.add_option("--protocol", protocol,
                 "the protocol's sizes and policies, key=value,... (lrc::protocol_argument)");
  bool no_profile = false;
  app.add_flag("--no-profile", no_profile, "no profile and no waits (measures what profiling costs)");
  app.add_option("--node-output", o.agent.output_dir, "each node's output into DIR/node-N.stdout|stderr");
  app.add_option("--max-wall", o.agent.max_wall_s,
                 "stop the run after this many seconds of host time, naming each node's place (0: no limit)")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--db", o.db, "the run's database (node 0 writes it)");
  app.add_flag("--force", o.force, "replace an existing database");
  app.add_option("--max-wait-rows", o.max_wait_rows,
                 "wait instances kept in the database (the summary stays complete)");
  app.add_option("--started-at", o.started_at, "when the run started (ISO 8601)");
  app.add_option("--config", o.config, "the effective configuration (TOML text) to store");
  app.add_option("--clock-exchanges", o.clock_exchanges, "round trips per clock synchronization burst")
      ->check(CLI::Range(1, 100000));
  app.add_option("--max-timeline", o.max_timeline, "timeline stretches kept in the database (0: none)");
  app.add_flag("--status-line", o.status_line,
               "node 0 ends with the line `ncp2-node status N` and exits 0 (ncp2 reads N through mpirun, "
               "which would otherwise print a banner for any non-zero exit)");
  app.add_option("args", o.agent.args, "the program's arguments (after --)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  o.agent.heap_bytes = heap_mb << 20;
  try {
    o.agent.protocol = lrc::parse_protocol_argument(protocol);
  } catch (const std::invalid_argument& e) {
    fmt::print(stderr, "ncp2-node: {}\n", e.what());
    return carnival::kExitUsage;
  }
  o.agent.page_bytes = o.agent.protocol.page_size;
  o.agent.profile = !no_profile;
  return -1;
}

std::vector<real::NodeRecord> gather(const real::NodeRecord& mine, int rank, int size) {
  const std::vector<std::byte> bytes = mine.encode();
  const int n = static_cast<int>(bytes.size());
  std::vector<int> sizes(static_cast<std::size_t>(size));
  MPI_Gather(&n, 1, MPI_INT, sizes.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
  std::vector<int> displacements(static_cast<std::size_t>(size));
  long total = 0;
  for (std::size_t k = 0; k < sizes.size(); ++k) {
    displacements[k] = static_cast<int>(total);
    total += sizes[k];
  }
  std::vector<std::byte> all(rank == 0 ? static_cast<std::size_t>(total) : 0);
  MPI_Gatherv(bytes.data(), n, MPI_BYTE, all.data(), sizes.data(), displacements.data(), MPI_BYTE, 0,
              MPI_COMM_WORLD);
  std::vector<real::NodeRecord> records;
  if (rank != 0) return records;
  for (std::size_t k = 0; k < sizes.size(); ++k)
    records.push_back(real::NodeRecord::decode(std::span(all).subspan(
        static_cast<std::size_t>(displacements[k]), static_cast<std::size_t>(sizes[k]))));
  return records;
}

void print_summary(const carnival::RunData& d, const std::vector<real::ClockMap>& clocks,
                   const NodeOptions& o) {
  std::string args;
  for (const auto& a : o.agent.args) args += " " + a;
  fmt::print("run       {}{} on {} real node{} (processes over Open MPI)\n",
             o.name.empty() ? o.agent.program : o.name, args.empty() ? "" : " --" + args, d.run.nodes,
             d.run.nodes == 1 ? "" : "s");
  fmt::print("time      {:.6f} s (node 0's clock, from the first start to the last exit)\n",
             static_cast<double>(d.run.virtual_time_ps) * 1e-12);
  for (const real::ClockMap& c : clocks)
    if (c.synchronized)
      fmt::print("clock     node {}: offset {:+.0f} ns, {}, error bound {:.0f} ns\n", c.node, c.offset_ns,
                 c.has_drift ? fmt::format("drift {:+.3f} ppm", c.drift_ppm)
                             : "no drift (one burst: the run stopped)",
                 c.bound_ns);
  fmt::print("status    {}{}\n", d.run.status, d.run.verified ? ", verified" : "");
  fmt::print("          {}\n", d.run.message);
  if (!o.db.empty()) fmt::print("database  {}\n", o.db);
}

int finish_on_node0(std::vector<real::NodeRecord> records, const std::vector<real::ClockMap>& clocks,
                    const NodeOptions& o, double wall_s, const std::string& clock_source) {
  real::RunMeta meta;
  meta.program = o.name.empty() ? o.agent.program : o.name;
  for (const auto& a : o.agent.args) meta.args += (meta.args.empty() ? "" : " ") + a;
  meta.config = o.config;
  meta.started_at = o.started_at;
  meta.wall_seconds = wall_s;
  meta.clock_source = clock_source;
  const std::uint64_t collections = records.empty() ? 0 : records.front().counters.gc_runs;
  const carnival::RunData d = real::assemble_run(records, clocks, meta);
  int code = carnival::exit_code_of(d.run.status, d.run.verified);
  if (!o.db.empty()) {
    try {
      real::write_real_run(o.db, o.force, d, clocks, clock_source, o.max_wait_rows, o.max_timeline);
    } catch (const carnival::StoreError& e) {
      fmt::print(stderr, "ncp2: {}\n", e.what());
      code = carnival::kExitFailure;
    }
  }
  print_summary(d, clocks, o);
  if (collections > 0)
    fmt::print("memory    {} garbage collection{} of diffs\n", collections, collections == 1 ? "" : "s");
  std::fflush(stdout);
  return code;
}

}  // namespace

int main(int argc, char** argv) {
  NodeOptions o;
  if (const int code = parse(argc, argv, o); code >= 0) return code;
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  int rank = 0;
  int size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (provided < MPI_THREAD_MULTIPLE) {
    if (rank == 0)
      fmt::print(stderr,
                 "ncp2-node: this MPI library does not support MPI_THREAD_MULTIPLE, which the node's "
                 "service thread needs\n");
    MPI_Finalize();
    return carnival::kExitFailure;
  }
  // Each node keeps its share of the timeline, for its program and for its service thread.
  o.agent.max_segments = o.max_timeline / static_cast<std::size_t>(2 * size);
  const auto wall_start = std::chrono::steady_clock::now();
  int code = 0;
  try {
    real::NodeClocks clocks(MPI_COMM_WORLD, o.clock_exchanges);
    clocks.first_burst();
    real::NodeRecord record;
    bool failed = false;
    {
      real::Transport transport(MPI_COMM_WORLD);
      real::NodeAgent agent(transport, o.agent, clocks.clock());
      agent.run();
      MPI_Barrier(MPI_COMM_WORLD);  // every node is done with its program: no request will come
      agent.stop_service();
      // Collective decision: the second burst is collective, every node must agree on it.
      int mine = agent.failed() ? 1 : 0;
      int any = 0;
      MPI_Allreduce(&mine, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
      failed = any != 0;
      if (!failed) transport.drain();
      record = std::move(agent.record());
    }
    if (!failed) clocks.second_burst();
    const std::vector<real::ClockMap> maps = clocks.maps();
    std::vector<real::NodeRecord> records = gather(record, rank, size);
    const double wall_s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
    if (rank == 0) code = finish_on_node0(std::move(records), maps, o, wall_s, clocks.source());
  } catch (const std::exception& e) {
    fmt::print(stderr, "ncp2-node {}: {}\n", rank, e.what());
    MPI_Abort(MPI_COMM_WORLD, carnival::kExitFailure);
  }
  MPI_Finalize();
  if (o.status_line && rank == 0) {
    std::printf("ncp2-node status %d\n", code);
    return 0;
  }
  return code;
}
