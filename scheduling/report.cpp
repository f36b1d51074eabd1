#include "scheduling/report.hpp"

#include <algorithm>
#include <map>

#include <fmt/format.h>

namespace ncp2::sched {

namespace {

constexpr int kProfileBuckets = 10;

std::vector<std::string> sets_in_order(const Experiment& e) {
  std::vector<std::string> sets;
  for (const auto& r : e.rows)
    if (std::find(sets.begin(), sets.end(), r.set) == sets.end()) sets.push_back(r.set);
  return sets;
}

std::string header(const Experiment& e) {
  const NodeOptions& o = e.options;
  return fmt::format(
      "ncp2 schedule: {} processors, bus {:g} transactions/us (a thread issues {:g} on an idle bus, queueing "
      "{:.4f}), quantum {:g} ms, window {} quanta, fair-share slack {}, seed {}\nturnaround time (s) of each "
      "application (mean of "
      "its 2 instances) and improvement over the baseline, {} (Linux 2.4's threads one by one; a split job "
      "keeps {:g} of its progress)\n",
      o.processors, o.capacity.per_us(), o.peak_per_thread.per_us(), o.queueing,
      to_microseconds(o.quantum) / 1000, o.window, o.fair_share_slack, o.seed, policy_name(baseline_policy()),
      o.split_progress);
}

std::string set_table(const Experiment& e, const std::string& set, const std::vector<std::string>& policies) {
  std::string out = fmt::format("\nset {}\n{:<12}", set, "application");
  for (const auto& p : policies) out += fmt::format(" {:>22}", p);
  out += "\n";
  std::vector<std::string> applications;
  for (const auto& r : e.rows)
    if (r.set == set &&
        std::find(applications.begin(), applications.end(), r.application) == applications.end())
      applications.push_back(r.application);
  for (const auto& a : applications) {
    out += fmt::format("{:<12}", a);
    for (const auto& p : policies)
      for (const auto& r : e.rows)
        if (r.set == set && r.application == a && r.policy == p)
          out += p == r.baseline ? fmt::format(" {:>22.2f}", r.turnaround_s)
                                 : fmt::format(" {:>12.2f} {:>+8.1f}%", r.turnaround_s, r.improvement_pct);
    out += "\n";
  }
  if (policies.size() < 2) return out;  // the baseline alone: nothing to compare
  const auto summaries = summarize(e);
  const std::string baseline = policy_name(baseline_policy());
  for (const auto& [label, pick] : {std::pair<const char*, int>{"mean", 0}, {"worst", 1}, {"best", 2}}) {
    out += fmt::format("{:<12}", label);
    for (const auto& p : policies)
      for (const auto& s : summaries)
        if (s.set == set && s.policy == p) {
          const double v = pick == 0 ? s.mean_pct : (pick == 1 ? s.worst_pct : s.best_pct);
          out += p == baseline ? fmt::format(" {:>22}", "") : fmt::format(" {:>12} {:>+8.1f}%", "", v);
        }
    out += "\n";
  }
  return out;
}

std::string bus_block(const Experiment& e, const std::string& set, const std::vector<std::string>& policies) {
  std::string out =
      fmt::format("bus utilization over time (served / capacity, %, tenths of each run; mean):\n");
  for (const auto& p : policies) {
    std::vector<double> sum(kProfileBuckets, 0);
    int runs = 0;
    for (const auto& b : e.bus)
      if (b.set == set && b.policy == p) {
        const auto profile = utilization_profile(b, kProfileBuckets);
        for (int i = 0; i < kProfileBuckets; ++i) sum[i] += profile[i];
        ++runs;
      }
    if (runs == 0) continue;
    out += fmt::format("  {:<15}", p);
    double mean = 0;
    for (const double v : sum) {
      out += fmt::format(" {:>4.0f}", v / runs * 100);
      mean += v / runs / kProfileBuckets;
    }
    out += fmt::format("  | {:>4.0f}\n", mean * 100);
  }
  return out;
}

}  // namespace

std::vector<double> utilization_profile(const BusSeries& series, int buckets) {
  std::vector<double> served(buckets, 0);
  std::vector<double> time(buckets, 0);
  if (series.samples.empty() || buckets < 1) return served;
  const BusSample& last = series.samples.back();
  const double end = to_seconds(last.start + last.length);
  for (const auto& s : series.samples) {
    // Each quantum counts in the part where it starts (quanta are short beside a tenth of a run).
    const auto b = std::min(buckets - 1, static_cast<int>(to_seconds(s.start) / end * buckets));
    served[b] += s.served.per_us() * to_seconds(s.length);
    time[b] += to_seconds(s.length);
  }
  for (int b = 0; b < buckets; ++b)
    served[b] = time[b] > 0 ? served[b] / time[b] / series.capacity.per_us() : 0;
  return served;
}

std::string experiment_text(const Experiment& experiment, const std::vector<Policy>& policies) {
  std::vector<std::string> names = {policy_name(baseline_policy())};
  for (const auto& p : policies)
    if (p != baseline_policy()) names.push_back(policy_name(p));
  std::string out = header(experiment);
  for (const auto& set : sets_in_order(experiment))
    out += set_table(experiment, set, names) + bus_block(experiment, set, names);
  return out;
}

nlohmann::json experiment_json(const Experiment& experiment) {
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& r : experiment.rows)
    rows.push_back({{"set", r.set},
                    {"application", r.application},
                    {"policy", r.policy},
                    {"turnaround_s", r.turnaround_s},
                    {"improvement_pct", r.improvement_pct},
                    {"baseline", r.baseline}});
  nlohmann::json bus = nlohmann::json::array();
  for (const auto& b : experiment.bus) {
    nlohmann::json t = nlohmann::json::array();
    nlohmann::json served = nlohmann::json::array();
    nlohmann::json demand = nlohmann::json::array();
    for (const auto& s : b.samples) {
      t.push_back(to_seconds(s.start));
      served.push_back(s.served.per_us());
      demand.push_back(s.demand.per_us());
    }
    bus.push_back({{"set", b.set},
                   {"application", b.application},
                   {"policy", b.policy},
                   {"capacity", b.capacity.per_us()},
                   {"target", b.target.per_us()},
                   {"ideal_average", b.ideal_average.per_us()},
                   {"t_s", t},
                   {"served", served},
                   {"demand", demand}});
  }
  return {{"rows", rows}, {"bus", bus}};
}

}  // namespace ncp2::sched
