// `ncp2 validate` (validation/validate.hpp).
#include "validation/validate.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <stdexcept>

#include <fmt/format.h>

#include "carnival/compare.hpp"
#include "carnival/run_reader.hpp"
#include "lrc/types.hpp"

namespace ncp2::validation {

namespace {

// The four kinds of wait a program has, by the operation of the wait.
constexpr std::array<lrc::Operation, 4> kWaitKinds = {lrc::Operation::PageFault, lrc::Operation::DiffFetch,
                                                      lrc::Operation::LockAcquire, lrc::Operation::Barrier};

std::vector<Compared> categories(const carnival::RunData& m, const carnival::RunData& p) {
  const auto profile_sum = [](const carnival::RunData& d, carnival::Category c) {
    std::int64_t ps = 0;
    for (const auto& cell : d.profile)
      if (cell.category == c) ps += cell.time_ps;
    return seconds(ps);
  };
  const auto waits = [](const carnival::RunData& d, std::string_view op) {
    std::int64_t ps = 0;
    for (const auto& w : d.wait_summary)
      if (w.kind == "Wait" && w.operation == op) ps += w.total_ps;
    return seconds(ps);
  };
  std::vector<Compared> out{
      {"computation", profile_sum(m, carnival::Category::Comp), profile_sum(p, carnival::Category::Comp)},
      {"protocol work", profile_sum(m, carnival::Category::Extra),
       profile_sum(p, carnival::Category::Extra)}};
  for (const lrc::Operation kind : kWaitKinds) {
    const std::string_view op = lrc::to_string(kind);
    out.push_back({std::string(op), waits(m, op), waits(p, op)});
  }
  return out;
}

carnival::ComparedRun compared(const carnival::RunData& d, const std::string& path) {
  carnival::ComparedRun r;
  r.path = path;
  r.run = d.run;
  r.scopes = d.scopes;
  std::map<std::tuple<int, std::uint32_t, carnival::Category>, carnival::ProfileCell> summed;
  for (const auto& cell : d.profile) {
    auto& s = summed[{cell.node, cell.scope, cell.category}];
    if (s.count == 0 && s.time_ps == 0)
      s = cell;
    else {
      s.time_ps += cell.time_ps;
      s.count += cell.count;
    }
  }
  for (auto& [key, cell] : summed) r.profile.push_back(cell);
  r.wait_summary = d.wait_summary;
  return r;
}

std::vector<Compared> scopes(const carnival::RunData& m, const carnival::RunData& p) {
  const carnival::Comparison c = carnival::compare_runs(compared(m, "measured"), compared(p, "predicted"));
  std::vector<Compared> out;
  for (const auto& row : c.rows)
    if (row.section == carnival::CompareSection::Scope && row.a_ps && row.b_ps)
      out.push_back({row.key, seconds(*row.a_ps), seconds(*row.b_ps)});
  return out;
}

std::vector<Validation::Count> counts(const carnival::RunData& m, const carnival::RunData& p) {
  std::map<std::string, std::pair<std::uint64_t, std::uint64_t>> sums;
  std::vector<std::string> order;
  for (const auto& c : p.protocol_counts) {
    if (!sums.contains(c.counter)) order.push_back(c.counter);
    sums[c.counter].second += c.value;
  }
  for (const auto& c : m.protocol_counts) {
    if (!sums.contains(c.counter)) order.push_back(c.counter);
    sums[c.counter].first += c.value;
  }
  std::vector<Validation::Count> out;
  out.reserve(order.size());
  for (const std::string& name : order) out.push_back({name, sums[name].first, sums[name].second});
  return out;
}

// The wait parts, summed over every wait; those a real run cannot observe are said instead.
void parts(const carnival::RunData& m, const carnival::RunData& p, Validation& v) {
  const auto sum = [](const carnival::RunData& d, std::size_t i) {
    std::int64_t ps = 0;
    for (const auto& w : d.wait_summary) ps += w.parts[i];
    return seconds(ps);
  };
  for (std::size_t i = 0; i < carnival::kWaitParts; ++i) {
    const auto part = static_cast<carnival::WaitPart>(i);
    const std::string name(carnival::kWaitPartTable[i].name);
    if (part == carnival::WaitPart::CPRWait)
      v.not_compared.push_back(name +
                               ": a request queued in the remote agent; MPI does not time a message's "
                               "arrival, so a real run counts it in CPComm");
    else if (part == carnival::WaitPart::PPRWait || part == carnival::WaitPart::PPRComp)
      v.not_compared.push_back(name + ": no remote program is interrupted in a real run (its agent serves)");
    else
      v.parts.push_back({name, sum(m, i), sum(p, i)});
  }
}

}  // namespace

std::optional<double> Compared::error_pct() const {
  if (!(measured_s > 0)) return std::nullopt;
  return 100 * (predicted_s / measured_s - 1);
}

Validation compare_runs(const std::vector<carnival::RunData>& measured, const carnival::RunData& predicted) {
  if (measured.empty()) throw std::invalid_argument("compare_runs: no measured run");
  Validation v;
  v.program = predicted.run.workload;
  v.nodes = predicted.run.nodes;
  v.repeat = static_cast<int>(measured.size());
  for (const auto& m : measured) v.measured_runs_s.push_back(seconds(m.run.virtual_time_ps));
  std::vector<std::size_t> order(measured.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(),
            [&](std::size_t a, std::size_t b) { return v.measured_runs_s[a] < v.measured_runs_s[b]; });
  const carnival::RunData& median = measured[order[(order.size() - 1) / 2]];
  v.measured_s = seconds(median.run.virtual_time_ps);
  v.measured_spread_pct =
      v.measured_s > 0
          ? 100 * (v.measured_runs_s[order.back()] - v.measured_runs_s[order.front()]) / v.measured_s
          : 0;
  v.predicted_s = seconds(predicted.run.virtual_time_ps);
  v.categories = categories(median, predicted);
  v.scopes = scopes(median, predicted);
  for (std::size_t k = 0; k < median.nodes.size() && k < predicted.nodes.size(); ++k)
    v.nodes_time.push_back({fmt::format("node {}", median.nodes[k].node), seconds(median.nodes[k].finish_ps),
                            seconds(predicted.nodes[k].finish_ps)});
  v.counts = counts(median, predicted);
  parts(median, predicted, v);
  if (median.run.nodes != predicted.run.nodes)
    v.notes.push_back(fmt::format("the runs have different node counts: {} measured, {} predicted",
                                  median.run.nodes, predicted.run.nodes));
  for (const auto& m : measured)
    if (m.run.status != "complete")
      v.notes.push_back(fmt::format("a measured run ended {}: {}", m.run.status, m.run.message));
  return v;
}

}  // namespace ncp2::validation
