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

inline std::string check_program(const RandomProgram& program, Coverage* coverage = nullptr) {
  const Expected expected = interpret(program);
  Harness h(program.config);
  carnival::Profiler profiler(h.dsm, h.cluster);
  std::vector<SharedArray<std::int64_t>> arrays(program.sizes.size());
  std::string problem;
  auto report = [&problem](std::string what) {
    if (problem.empty()) problem = std::move(what);
  };
  emu::RunResult r;
  try {
    r = h.run(
        [&](Process& p) {
          for (std::size_t a = 0; a < program.sizes.size(); ++a)
            arrays[a] = p.alloc<std::int64_t>(fmt::format("array{}", a), program.sizes[a]);
          std::vector<ArrayView<std::int64_t>> v;
          for (const auto& a : arrays) v.push_back(p.view(a));
          const auto me = static_cast<std::size_t>(p.id());
          for (std::size_t ph = 0; ph < program.phases.size(); ++ph) {
            std::size_t read_no = 0;
            for (const Op& op : program.phases[ph][me]) {
              auto& target = v[static_cast<std::size_t>(op.array)];
              switch (op.kind) {
                case Op::Write:
                  target.set(op.index,
                             op.constant + v[static_cast<std::size_t>(op.src_array)].get(op.src_index));
                  break;
                case Op::Read: {
                  const std::int64_t got = target.get(op.index);
                  const std::int64_t want = expected.reads[ph][me][read_no++];
                  if (got != want)
                    report(fmt::format("phase {} node {}: read array{}[{}] = {}, sequential {}", ph, me,
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
        },
        [&](Process& p) {
          if (p.id() != 0) return;
          for (std::size_t a = 0; a < arrays.size(); ++a) {
            auto v = p.view(arrays[a]);
            for (std::size_t i = 0; i < arrays[a].size(); ++i)
              if (v.get(i) != expected.final_state[a][i])
                report(fmt::format("final array{}[{}] = {}, sequential {}", a, i, v.get(i),
                                   expected.final_state[a][i]));
          }
        });
  } catch (const std::exception& e) {
    return fmt::format("run failed: {}", e.what());
  }
  if (r.status != emu::RunStatus::Completed) return fmt::format("run did not complete: {}", r.diagnosis);
  // The profile of the run: every picosecond in one category, waits that sum exactly.
  {
    const carnival::RunData d = profiler.finish({});
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
        report(fmt::format("profile: a wait's parts sum to {} ps, not {}", sum, w.duration_ps));
      instances[static_cast<std::size_t>(w.node)] += w.duration_ps;
    }
    for (const auto& n : d.nodes) {
      const auto i = static_cast<std::size_t>(n.node);
      if (pp[i] != n.finish_ps)
        report(fmt::format("profile: node {} PP categories {} ps, finish {} ps", i, pp[i], n.finish_ps));
      if (h.cluster.has_cp() && cp[i] != d.run.virtual_time_ps)
        report(
            fmt::format("profile: node {} CP categories {} ps, run {} ps", i, cp[i], d.run.virtual_time_ps));
      if (wait[i] != instances[i])
        report(fmt::format("profile: node {} Wait {} ps, wait instances {} ps", i, wait[i], instances[i]));
    }
  }
  if (coverage) {
    coverage->page_requests += h.total_of([](const NodeStats& st) { return st.page_requests; });
    coverage->diff_requests += h.total_of([](const NodeStats& st) { return st.diff_requests; });
    coverage->gc_runs += h.total_of([](const NodeStats& st) { return st.gc_runs; });
    coverage->lock_forwards += h.total(kLockForward);
    for (const auto& w : h.waits)
      if (w.operation == Operation::DiffFetch && w.requests >= 2) ++coverage->multi_writer_fetches;
    for (const auto& phase : expected.reads)
      for (const auto& node_reads : phase) coverage->reads_checked += node_reads.size();
  }
  for (const auto& w : h.waits) {
    try {
      const WaitBreakdown b = fold_wait(w.chain, w.node, h.cluster.has_cp());
      if (b.total != w.end - w.start)
        report(fmt::format("node {} {} wait of {} folds to {}", emu::index(w.node), to_string(w.operation),
                           emu::format_duration(w.end - w.start), emu::format_duration(b.total)));
    } catch (const std::exception& e) {
      report(fmt::format("node {} {} wait: {}", emu::index(w.node), to_string(w.operation), e.what()));
    }
  }
  return problem;
}

}  // namespace ncp2::dsm::testing
