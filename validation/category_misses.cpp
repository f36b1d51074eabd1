// Per kind of wait, the measured and predicted waits side by side (validation/category_misses.hpp).
#include "validation/category_misses.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include <fmt/format.h>

#include "carnival/wait_parts.hpp"

namespace ncp2::validation {

namespace {

WaitSide side_of(const carnival::RunData& run, const std::string& operation) {
  std::vector<std::int64_t> durations;
  std::int64_t total = 0, resume = 0, slow = 0;
  WaitSide s;
  for (const carnival::WaitRow& w : run.waits) {
    if (w.kind != "Wait" || w.operation != operation) continue;
    durations.push_back(w.duration_ps);
    total += w.duration_ps;
    resume += w.parts[static_cast<std::size_t>(carnival::WaitPart::PPLWait)];
    if (w.duration_ps > kSlowWaitPs) {
      ++s.slow_count;
      slow += w.duration_ps;
    }
  }
  if (durations.empty()) return s;
  s.count = durations.size();
  s.total_s = seconds(total);
  s.slow_s = seconds(slow);
  const auto n = static_cast<double>(s.count);
  s.mean_us = static_cast<double>(total) * 1e-6 / n;
  s.resume_us = static_cast<double>(resume) * 1e-6 / n;
  const auto mid = durations.begin() + static_cast<std::ptrdiff_t>((durations.size() - 1) / 2);
  std::nth_element(durations.begin(), mid, durations.end());
  s.median_us = static_cast<double>(*mid) * 1e-6;  // the lower middle of an even count
  return s;
}

// "less" or "more": what the prediction has against the measurement.
const char* less_or_more(double predicted_minus_measured) {
  return predicted_minus_measured < 0 ? "less" : "more";
}

// The miss is worth explaining: more than `miss_pct` percent of what was measured, and more than 1 ms.
bool misses(double measured_s, double predicted_s, double miss_pct) {
  const double diff = predicted_s - measured_s;
  return measured_s > 0 && std::abs(diff) > 1e-3 && std::abs(100 * diff / measured_s) > miss_pct;
}

}  // namespace

std::vector<Compared> protocol_work_by_operation(const carnival::RunData& measured,
                                                 const carnival::RunData& predicted) {
  std::map<std::string, Compared> by;
  for (const auto* d : {&measured, &predicted})
    for (const carnival::ProfileCell& c : d->profile) {
      if (c.category != carnival::Category::Extra) continue;
      Compared& o = by[c.operation];
      o.name = c.operation;
      (d == &measured ? o.measured_s : o.predicted_s) += seconds(c.time_ps);
    }
  std::vector<Compared> out;
  out.reserve(by.size());
  for (auto& [name, o] : by) out.push_back(std::move(o));
  std::ranges::stable_sort(out,
                           [](const Compared& a, const Compared& b) { return a.measured_s > b.measured_s; });
  return out;
}

std::vector<std::string> protocol_work_miss_notes(const std::vector<Compared>& by_operation,
                                                  double miss_pct) {
  double measured = 0, predicted = 0;
  for (const Compared& o : by_operation) {
    measured += o.measured_s;
    predicted += o.predicted_s;
  }
  if (!misses(measured, predicted, miss_pct)) return {};
  std::vector<Compared> largest = by_operation;
  std::ranges::stable_sort(largest, [](const Compared& a, const Compared& b) {
    return std::abs(a.predicted_s - a.measured_s) > std::abs(b.predicted_s - b.measured_s);
  });
  std::string parts;
  for (std::size_t i = 0; i < largest.size() && i < 3; ++i)
    parts += fmt::format("{}{} {:+.4f} s ({:.4f} -> {:.4f})", i == 0 ? "" : ", ", largest[i].name,
                         largest[i].predicted_s - largest[i].measured_s, largest[i].measured_s,
                         largest[i].predicted_s);
  const double diff = predicted - measured;
  return {
      fmt::format("protocol work: {:.4f} s {} predicted than measured ({:+.0f} %), by operation most in: {}",
                  std::abs(diff), less_or_more(diff), 100 * diff / measured, parts)};
}

std::vector<WaitKindStats> wait_stats(const carnival::RunData& measured, const carnival::RunData& predicted,
                                      const std::vector<std::string>& operations) {
  std::vector<WaitKindStats> out;
  out.reserve(operations.size());
  for (const std::string& op : operations) out.push_back({op, side_of(measured, op), side_of(predicted, op)});
  return out;
}

std::vector<std::string> wait_miss_notes(const std::vector<WaitKindStats>& stats, double miss_pct) {
  std::vector<std::string> notes;
  for (const WaitKindStats& k : stats) {
    const WaitSide& m = k.measured;
    const WaitSide& p = k.predicted;
    if (!misses(m.total_s, p.total_s, miss_pct)) continue;
    const double diff = p.total_s - m.total_s;
    const double slow_diff = p.slow_s - m.slow_s;
    const double rest_diff = diff - slow_diff;
    std::string slow;
    if (m.slow_count == 0 && p.slow_count == 0)
      slow = "with no wait over 1 ms on either side";
    else
      slow = fmt::format(
          "{:.4f} s {} in the waits over 1 ms ({} measured, {} predicted: a node's core given to its server "
          "at the "
          "host's scheduler tick, not the exchange) and {:.4f} s {} in the others",
          std::abs(slow_diff), less_or_more(slow_diff), m.slow_count, p.slow_count, std::abs(rest_diff),
          less_or_more(rest_diff));
    notes.push_back(fmt::format(
        "{}: {:.4f} s {} predicted than measured ({:+.0f} %): {} ({} -> {} waits; the median of all "
        "{:.1f} -> {:.1f} us; the program resuming after the reply {:.1f} -> {:.1f} us a wait)",
        k.operation, std::abs(diff), less_or_more(diff), 100 * diff / m.total_s, slow, m.count - m.slow_count,
        p.count - p.slow_count, m.median_us, p.median_us, m.resume_us, p.resume_us));
  }
  return notes;
}

std::string wait_stats_text(const std::vector<WaitKindStats>& stats) {
  std::string out =
      fmt::format("\n{:<32} {:>8} {:>10} {:>10} {:>11} {:>22}\n", "waits by operation (all nodes)", "count",
                  "median us", "mean us", "resuming us", "over 1 ms: waits, s");
  const auto line = [&out](const std::string& label, const WaitSide& w) {
    out += fmt::format("{:<32} {:>8} {:>10.1f} {:>10.1f} {:>11.1f} {:>11} {:>10.6f}\n", label, w.count,
                       w.median_us, w.mean_us, w.resume_us, w.slow_count, w.slow_s);
  };
  for (const WaitKindStats& k : stats) {
    line(k.operation + ", measured", k.measured);
    line(std::string(k.operation.size(), ' ') + ", predicted", k.predicted);
  }
  return out;
}

nlohmann::json wait_stats_json(const std::vector<WaitKindStats>& stats) {
  const auto side = [](const WaitSide& w) {
    return nlohmann::json{{"count", w.count},     {"total_s", w.total_s},     {"median_us", w.median_us},
                          {"mean_us", w.mean_us}, {"resume_us", w.resume_us}, {"slow_count", w.slow_count},
                          {"slow_s", w.slow_s}};
  };
  nlohmann::json out = nlohmann::json::array();
  for (const WaitKindStats& k : stats)
    out.push_back(
        {{"operation", k.operation}, {"measured", side(k.measured)}, {"predicted", side(k.predicted)}});
  return out;
}

}  // namespace ncp2::validation
