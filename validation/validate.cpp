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

// Why each category misses (validation/category_misses.hpp): the waits and the protocol work per
// operation, and a note for each category beyond the goal.
void explain_misses(const carnival::RunData& m, const carnival::RunData& p, Validation& v) {
  std::vector<std::string> kinds;
  kinds.reserve(kWaitKinds.size());
  for (const lrc::Operation kind : kWaitKinds) kinds.emplace_back(lrc::to_string(kind));
  v.waits = wait_stats(m, p, kinds);
  for (const auto* d : {&m, &p})
    if (d->waits_dropped > 0)
      v.notes.push_back(
          fmt::format("the {} run stored {} of its waits ({} more were not kept): the waits per "
                      "operation are of those stored",
                      d == &m ? "measured" : "predicted", d->waits.size(), d->waits_dropped));
  v.protocol_work = protocol_work_by_operation(m, p);
  for (std::string& n : protocol_work_miss_notes(v.protocol_work, kWaitMissPct))
    v.notes.push_back(std::move(n));
  for (std::string& n : wait_miss_notes(v.waits, kWaitMissPct)) v.notes.push_back(std::move(n));
}

// The median run of `runs` (the lower one of an even count), each run's time into `times` and
// their spread, (max - min) / median, into `spread_pct`.
struct Median {
  const carnival::RunData* run = nullptr;
  double seconds = 0;
};
Median median_of(const std::vector<carnival::RunData>& runs, std::vector<double>& times, double& spread_pct) {
  for (const auto& r : runs) times.push_back(seconds(r.run.virtual_time_ps));
  std::vector<std::size_t> order(runs.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return times[a] < times[b]; });
  const std::size_t mid = order[(order.size() - 1) / 2];
  const double median = times[mid];
  spread_pct = median > 0 ? 100 * (times[order.back()] - times[order.front()]) / median : 0;
  return {&runs[mid], median};
}

}  // namespace

std::optional<double> Compared::error_pct() const {
  if (!(measured_s > 0)) return std::nullopt;
  return 100 * (predicted_s / measured_s - 1);
}

std::optional<TooShort> too_short(double measured_spread_pct, double measured_s) {
  // A spread of exactly the goal is within it (1e-9: times in seconds from picoseconds round).
  if (!(measured_spread_pct > kTotalGoalPct + 1e-9)) return std::nullopt;
  const double raw = measured_spread_pct / kTotalGoalPct;
  double factor = 0;
  if (raw <= 2)
    factor = std::ceil(raw * 2) / 2;  // 1.5x, 2x
  else if (raw <= 10)
    factor = std::ceil(raw);
  else {  // two significant digits, rounded up
    const double unit = std::pow(10.0, std::floor(std::log10(raw)) - 1);
    factor = std::ceil(raw / unit) * unit;
  }
  return TooShort{measured_spread_pct, kTotalGoalPct, factor, factor * measured_s};
}

Validation compare_runs(const std::vector<carnival::RunData>& measured,
                        const std::vector<carnival::RunData>& predicted) {
  if (measured.empty()) throw std::invalid_argument("compare_runs: no measured run");
  if (predicted.empty()) throw std::invalid_argument("compare_runs: no predicted run");
  Validation v;
  const Median m = median_of(measured, v.measured_runs_s, v.measured_spread_pct);
  const Median p = median_of(predicted, v.predicted_runs_s, v.predicted_spread_pct);
  const carnival::RunData& median = *m.run;
  const carnival::RunData& prediction = *p.run;
  v.program = prediction.run.workload;
  v.nodes = prediction.run.nodes;
  v.repeat = static_cast<int>(measured.size());
  v.predictions = static_cast<int>(predicted.size());
  v.measured_s = m.seconds;
  v.predicted_s = p.seconds;
  v.too_short = too_short(v.measured_spread_pct, v.measured_s);
  v.categories = categories(median, prediction);
  v.scopes = scopes(median, prediction);
  for (std::size_t k = 0; k < median.nodes.size() && k < prediction.nodes.size(); ++k)
    v.nodes_time.push_back({fmt::format("node {}", median.nodes[k].node), seconds(median.nodes[k].finish_ps),
                            seconds(prediction.nodes[k].finish_ps)});
  v.counts = counts(median, prediction);
  parts(median, prediction, v);
  explain_misses(median, prediction, v);
  if (median.run.nodes != prediction.run.nodes)
    v.notes.push_back(fmt::format("the runs have different node counts: {} measured, {} predicted",
                                  median.run.nodes, prediction.run.nodes));
  for (const auto& r : measured)
    if (r.run.status != "complete")
      v.notes.push_back(fmt::format("a measured run ended {}: {}", r.run.status, r.run.message));
  for (const auto& r : predicted)
    if (r.run.status != "complete")
      v.notes.push_back(fmt::format("a predicted run ended {}: {}", r.run.status, r.run.message));
  return v;
}

}  // namespace ncp2::validation
