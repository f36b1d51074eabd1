#include "perf_counters/report.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "perf_counters/series.hpp"

namespace ncp2::counters {

namespace {

nlohmann::json number_or_null(const std::optional<double>& v) {
  if (!v) return nullptr;
  // Counts are integers unless multiplexing scaled them.
  if (std::nearbyint(*v) == *v && std::fabs(*v) < 9e15) return static_cast<std::int64_t>(*v);
  return *v;
}

std::string quote_arg(const std::string& a) {
  const bool plain = !a.empty() && std::all_of(a.begin(), a.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) ||
           std::string_view("-_./=:,+%@").find(c) != std::string_view::npos;
  });
  if (plain) return a;
  std::string out = "'";
  for (char c : a) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string command_line(const std::vector<std::string>& command) {
  std::string out;
  for (const auto& a : command) {
    // Not " " + quote_arg(a): a false -Wrestrict of GCC 12 at -O3 (GCC bug 105651).
    if (!out.empty()) out += ' ';
    out += quote_arg(a);
  }
  return out;
}

std::string period_text(Nanoseconds p) {
  const auto ns = p.count();
  if (ns % 1'000'000'000 == 0) return fmt::format("{} s", ns / 1'000'000'000);
  if (ns % 1'000'000 == 0) return fmt::format("{} ms", ns / 1'000'000);
  return fmt::format("{} us", static_cast<double>(ns) / 1e3);
}

std::string count_text(double v) {
  if (std::nearbyint(v) == v) return fmt::format("{:.0f}", v);
  return fmt::format("{:.1f}", v);
}

std::string rate_text(const std::optional<double>& per_second, const std::string& unit) {
  if (!per_second) return "-";
  if (unit == "ns") return fmt::format("{:.3f} CPUs", *per_second / 1e9);
  return fmt::format("{:.4g}/s", *per_second);
}

}  // namespace

nlohmann::json counters_json(const CounterRun& run) {
  nlohmann::json j;
  j["command"] = run.command;
  j["period_ms"] = static_cast<double>(run.period.count()) / 1e6;
  j["events"] = nlohmann::json::array();
  for (const auto& e : run.events)
    j["events"].push_back({{"name", e.name},
                           {"available", e.available},
                           {"reason", e.reason},
                           {"note", e.note},
                           {"source", e.source},
                           {"encoding", e.encoding},
                           {"unit", e.unit}});
  const auto rows = sample_rows(run);
  j["samples"] = nlohmann::json::array();
  for (const auto& row : rows) {
    nlohmann::json values = nlohmann::json::object();
    for (const auto& e : run.events)
      if (e.available)
        values[e.name] = number_or_null(row.points.at(static_cast<std::size_t>(e.group_index)).delta);
    j["samples"].push_back({{"t_s", row.t_s}, {"dt_ms", row.dt_ms}, {"late", row.late}, {"values", values}});
  }
  const auto totals = event_totals(run);
  j["totals"] = nlohmann::json::object();
  for (std::size_t i = 0; i < run.events.size(); ++i)
    j["totals"][run.events[i].name] = number_or_null(totals[i]);
  j["exit_code"] = run.exit_code;
  j["exit_description"] = run.exit_description;
  j["wall_seconds"] = run.wall_seconds;
  j["samples_dropped"] = run.samples_dropped;
  j["samples_late"] = run.samples_late;
  j["perf_event_paranoid"] =
      run.perf_event_paranoid ? nlohmann::json(*run.perf_event_paranoid) : nlohmann::json();
  j["inherit"] = run.inherit;
  return j;
}

std::string events_text(const std::vector<EventStatus>& events) {
  std::size_t width = 5;
  for (const auto& e : events) width = std::max(width, e.name.size());
  std::string out;
  for (const auto& e : events) {
    if (e.available)
      out += fmt::format("  {:<{}}  counted      {} {}{}\n", e.name, width, e.source, e.encoding,
                         e.note.empty() ? "" : fmt::format(" ({})", e.note));
    else
      out += fmt::format("  {:<{}}  NOT COUNTED  {}\n", e.name, width, e.reason);
  }
  return out;
}

std::string counters_text(const CounterRun& run, bool summary_only) {
  std::string out = fmt::format("ncp2 counters: {}\nperiod {}; {}\nevents:\n", command_line(run.command),
                                period_text(run.period),
                                run.inherit ? "the command's children are counted too" : "the command alone");
  out += events_text(run.events);
  std::size_t width = 5;
  for (const auto& e : run.events) width = std::max(width, e.name.size());

  if (!summary_only) {
    out += fmt::format(
        "samples (t = wall time since exec; delta = count in the period; {} repeated sample(s) dropped; rows "
        "starting with # were read more than half a period late):\n",
        run.samples_dropped);
    out += fmt::format("#{:>10} {:<{}} {:>16} {:>18} {:>10} {:>14}\n", "t(s)", "event", width, "delta",
                       "total", "dt(ms)", "rate");
    for (const auto& row : sample_rows(run)) {
      for (const auto& e : run.events) {
        if (!e.available) continue;
        const EventPoint& p = row.points.at(static_cast<std::size_t>(e.group_index));
        out += fmt::format("{}{:>10.5f} {:<{}} {:>16} {:>18} {:>10.2f} {:>14}\n", row.late ? "#" : " ",
                           row.t_s, e.name, width, p.delta ? count_text(*p.delta) : "-",
                           p.total ? count_text(*p.total) : "-", row.dt_ms,
                           rate_text(rate_per_second(p, row.dt_ms), e.unit));
      }
    }
  }

  out += "totals:\n";
  const auto totals = event_totals(run);
  for (std::size_t i = 0; i < run.events.size(); ++i) {
    const EventStatus& e = run.events[i];
    if (!totals[i]) {
      out += fmt::format("  {:<{}}  not counted\n", e.name, width);
      continue;
    }
    const double mean = run.wall_seconds > 0 ? *totals[i] / run.wall_seconds : 0;
    out += fmt::format("  {:<{}}  {:>18}{}  mean {}\n", e.name, width, count_text(*totals[i]),
                       e.unit.empty() ? "" : " " + e.unit, rate_text(mean, e.unit));
  }
  out += fmt::format("command {}; wall {:.3f} s; {} sample(s) kept, {} repeated dropped, {} late\n",
                     run.exit_description, run.wall_seconds, run.samples.size(), run.samples_dropped,
                     run.samples_late);
  if (const std::string short_run = too_short_to_plot(run); !short_run.empty())
    out += fmt::format("note: {}\n", short_run);
  return out;
}

}  // namespace ncp2::counters
