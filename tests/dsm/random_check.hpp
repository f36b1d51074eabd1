#pragma once
// Runs a random program on the DSM and compares every read and the final state with the
// sequential interpreter. Returns "" when they agree, else what went wrong.
#include <string>

#include <fmt/format.h>

#include "carnival/profiler.hpp"
#include "tests/dsm/harness.hpp"
#include "tests/dsm/random_program.hpp"

namespace ncp2::dsm::testing {

// What a batch of programs exercised, so a test can prove it was not vacuous.
struct Coverage {
  std::uint64_t page_requests = 0;
  std::uint64_t diff_requests = 0;
  std::uint64_t multi_writer_fetches = 0;  // diff fetches that asked two writers or more
  std::uint64_t gc_runs = 0;
  std::uint64_t lock_forwards = 0;
  std::uint64_t reads_checked = 0;
};

namespace check_detail {

// The first problem found (the rest usually follow from it).
struct Problem {
  std::string text;
  void report(std::string what) {
    if (text.empty()) text = std::move(what);
  }
};

// One node's part of the program: every phase's operations, each read compared with the
// sequential interpreter's, a barrier after each phase.
inline void run_phases(Process& p, const RandomProgram& program, const Expected& expected,
                       std::vector<SharedArray<std::int64_t>>& arrays, Problem& problem) {
  for (std::size_t a = 0; a < program.sizes.size(); ++a)
    arrays[a] = p.alloc<std::int64_t>(fmt::format("array{}", a), program.sizes[a]);
  std::vector<ArrayView<std::int64_t>> v;
  v.reserve(arrays.size());
  for (const auto& a : arrays) v.push_back(p.view(a));
  const auto me = static_cast<std::size_t>(p.id());
  for (std::size_t ph = 0; ph < program.phases.size(); ++ph) {
    std::size_t read_no = 0;
    for (const Op& op : program.phases[ph][me]) {
      auto& target = v[static_cast<std::size_t>(op.array)];
      switch (op.kind) {
        case Op::Write:
          target.set(op.index, op.constant + v[static_cast<std::size_t>(op.src_array)].get(op.src_index));
          break;
        case Op::Read: {
          const std::int64_t got = target.get(op.index);
          const std::int64_t want = expected.reads[ph][me][read_no++];
          if (got != want)
            problem.report(fmt::format("phase {} node {}: read array{}[{}] = {}, sequential {}", ph, me,
                                       op.array, op.index, got, want));
          break;
        }
        case Op::Add: {
          auto guard = p.lock(static_cast<std::uint32_t>(op.index) + 1);
          target.set(op.index, target.get(op.index) + op.constant);
          break;
        }
      }
      p.compute_cycles(10);
    }
    p.barrier(0);
  }
}

// After Tmk_exit, node 0 compares every array with the interpreter's final state.
inline void check_final_state(Process& p, const Expected& expected,
                              const std::vector<SharedArray<std::int64_t>>& arrays, Problem& problem) {
  if (p.id() != 0) return;
  for (std::size_t a = 0; a < arrays.size(); ++a) {
    auto v = p.view(arrays[a]);
    for (std::size_t i = 0; i < arrays[a].size(); ++i)
      if (v.get(i) != expected.final_state[a][i])
        problem.report(
            fmt::format("final array{}[{}] = {}, sequential {}", a, i, v.get(i), expected.final_state[a][i]));
  }
}

// The profile of the run: every picosecond in one category, waits that sum exactly.
inline void check_profile(const carnival::RunData& d, bool has_cp, Problem& problem) {
  std::vector<std::int64_t> pp(d.nodes.size(), 0), cp(d.nodes.size(), 0), wait(d.nodes.size(), 0),
      instances(d.nodes.size(), 0);
  for (const auto& c : d.profile) {
    const auto n = static_cast<std::size_t>(c.node);
    (carnival::is_pp_category(c.category) ? pp : cp)[n] += c.time_ps;
    if (c.category == carnival::Category::Wait) wait[n] += c.time_ps;
  }
  for (const auto& w : d.waits) {
    std::int64_t sum = 0;
    for (auto part : w.parts) sum += part;
    if (sum != w.duration_ps)
      problem.report(fmt::format("profile: a wait's parts sum to {} ps, not {}", sum, w.duration_ps));
    instances[static_cast<std::size_t>(w.node)] += w.duration_ps;
  }
  for (const auto& n : d.nodes) {
    const auto i = static_cast<std::size_t>(n.node);
    if (pp[i] != n.finish_ps)
      problem.report(
          fmt::format("profile: node {} PP categories {} ps, finish {} ps", i, pp[i], n.finish_ps));
    if (has_cp && cp[i] != d.run.virtual_time_ps)
      problem.report(
          fmt::format("profile: node {} CP categories {} ps, run {} ps", i, cp[i], d.run.virtual_time_ps));
    if (wait[i] != instances[i])
      problem.report(
          fmt::format("profile: node {} Wait {} ps, wait instances {} ps", i, wait[i], instances[i]));
  }
}

inline void add_coverage(const Harness& h, const Expected& expected, Coverage& coverage) {
  coverage.page_requests += h.total_of([](const NodeStats& st) { return st.page_requests; });
  coverage.diff_requests += h.total_of([](const NodeStats& st) { return st.diff_requests; });
  coverage.gc_runs += h.total_of([](const NodeStats& st) { return st.gc_runs; });
  coverage.lock_forwards += h.total(kLockForward);
  for (const auto& w : h.waits)
    if (w.operation == Operation::DiffFetch && w.requests >= 2) ++coverage.multi_writer_fetches;
  for (const auto& phase : expected.reads)
    for (const auto& node_reads : phase) coverage.reads_checked += node_reads.size();
}

// Every wait's stamp chain folds into parts that sum to its duration.
inline void check_folds(const Harness& h, Problem& problem) {
  for (const auto& w : h.waits) {
    try {
      const WaitBreakdown b = fold_wait(w.chain, w.node, h.cluster.has_cp());
      if (b.total != w.end - w.start)
        problem.report(fmt::format("node {} {} wait of {} folds to {}", emu::index(w.node),
                                   to_string(w.operation), emu::format_duration(w.end - w.start),
                                   emu::format_duration(b.total)));
    } catch (const std::exception& e) {
      problem.report(
          fmt::format("node {} {} wait: {}", emu::index(w.node), to_string(w.operation), e.what()));
    }
  }
}

}  // namespace check_detail

inline std::string check_program(const RandomProgram& program, Coverage* coverage = nullptr) {
  using namespace check_detail;
  const Expected expected = interpret(program);
  Harness h(program.config);
  h.dsm.enable_race_detection();  // the programs are data-race free: the detector must agree
  carnival::Profiler profiler(h.dsm, h.cluster);
  std::vector<SharedArray<std::int64_t>> arrays(program.sizes.size());
  Problem problem;
  emu::RunResult r;
  try {
    r = h.run([&](Process& p) { run_phases(p, program, expected, arrays, problem); },
              [&](Process& p) { check_final_state(p, expected, arrays, problem); });
  } catch (const std::exception& e) {
    return fmt::format("run failed: {}", e.what());
  }
  if (r.status != emu::RunStatus::Completed) return fmt::format("run did not complete: {}", r.diagnosis);
  h.dsm.race_detector()->finish();
  for (const auto& race : h.dsm.race_detector()->races())
    problem.report(fmt::format(
        "a data race reported on a race-free program: page {} byte {}, nodes {} ({}) and {} ({})",
        raw(race.page), race.offset, emu::index(race.first.node), race.first.writes ? "write" : "read",
        emu::index(race.second.node), race.second.writes ? "write" : "read"));
  check_profile(profiler.finish({}), h.cluster.has_cp(), problem);
  if (coverage) add_coverage(h, expected, *coverage);
  check_folds(h, problem);
  return problem.text;
}

}  // namespace ncp2::dsm::testing
