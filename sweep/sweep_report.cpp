// A sweep's points as text, JSON or CSV (sweep/sweep_report.hpp).
#include "sweep/sweep_report.hpp"

#include <algorithm>
#include <array>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "carnival/model.hpp"
#include "sweep/point_command.hpp"

namespace ncp2::sweep {

namespace {

using nlohmann::json;

// The three largest of the PP's categories as shares of the PPs' time: "Comp 71% Wait 22% Extra 5%".
std::string top_categories(const PointRecord& r) {
  std::vector<CategoryTime> pp;
  std::int64_t total = 0;
  for (const CategoryTime& c : r.categories) {
    const auto category = carnival::category_from_string(c.category);
    if (!category || !carnival::is_pp_category(*category)) continue;
    pp.push_back(c);
    total += c.time_ps;
  }
  if (total <= 0) return "";
  std::stable_sort(pp.begin(), pp.end(),
                   [](const CategoryTime& a, const CategoryTime& b) { return a.time_ps > b.time_ps; });
  std::string out;
  for (std::size_t i = 0; i < std::min<std::size_t>(3, pp.size()); ++i)
    out += fmt::format("{}{} {:.0f}%", out.empty() ? "" : " ", pp[i].category,
                       100.0 * static_cast<double>(pp[i].time_ps) / static_cast<double>(total));
  return out;
}

// Four significant digits in the unit that fits: "6.740 ms" (the database keeps every picosecond).
std::string time_text(std::int64_t ps) {
  const double s = static_cast<double>(ps) * 1e-12;
  if (s >= 1) return fmt::format("{:.3f} s", s);
  if (s >= 1e-3) return fmt::format("{:.3f} ms", s * 1e3);
  if (s >= 1e-6) return fmt::format("{:.3f} us", s * 1e6);
  return fmt::format("{:.3f} ns", s * 1e9);
}

std::string status_text(const PointRecord& r) {
  if (r.status == PointStatus::Done) return "verified";
  return std::string(to_string(r.status));
}

std::string text_table(const SweepOutcome& o) {
  std::vector<std::array<std::string, 7>> rows;
  rows.push_back(
      {"machine", "nodes", "settings", "virtual time", "speedup", "top categories (PP)", "status"});
  for (std::size_t i = 0; i < o.points.size(); ++i) {
    const Point& p = o.points[i];
    const PointRecord& r = o.records[i];
    rows.push_back({p.machine, std::to_string(p.nodes), settings_text(p),
                    r.virtual_time_ps && r.status == PointStatus::Done ? time_text(*r.virtual_time_ps) : "-",
                    r.speedup ? fmt::format("{:.2f}", *r.speedup) : "-", top_categories(r), status_text(r)});
  }
  std::array<std::size_t, 7> width{};
  for (const auto& row : rows)
    for (std::size_t c = 0; c < row.size(); ++c) width[c] = std::max(width[c], row[c].size());
  std::string out;
  for (const auto& row : rows) {
    std::string line;
    for (std::size_t c = 0; c < row.size(); ++c) {
      const bool right = c == 1 || c == 3 || c == 4;  // numbers
      line += right ? fmt::format("{:>{}}  ", row[c], width[c]) : fmt::format("{:<{}}  ", row[c], width[c]);
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
  }
  return out;
}

json point_json(const Point& p, const PointRecord& r) {
  json settings = json::object();
  for (const Setting& s : p.settings) settings[s.key] = s.value;
  json categories = json::object();
  for (const CategoryTime& c : r.categories) categories[c.category] = c.time_ps;
  json waits = json::array();
  for (const WaitTime& w : r.waits)
    waits.push_back({{"kind", w.kind}, {"count", w.count}, {"time_ps", w.time_ps}});
  const auto or_null = [](const auto& v) { return v ? json(*v) : json(nullptr); };
  return {{"name", p.name},
          {"machine", p.machine},
          {"nodes", p.nodes},
          {"settings", settings},
          {"status", std::string(to_string(r.status))},
          {"message", r.message},
          {"db_file", point_files(p).db},
          {"virtual_time_ps", or_null(r.virtual_time_ps)},
          {"speedup", or_null(r.speedup)},
          {"verified", or_null(r.verified)},
          {"wall_s", or_null(r.wall_s)},
          {"categories", categories},
          {"waits", waits}};
}

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string out = "\"";
  for (const char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

std::string csv_table(const SweepOutcome& o) {
  std::string out = "name,machine,nodes,settings,status,virtual_time_ps,speedup,verified,wall_s";
  for (const carnival::CategoryDef& def : carnival::kCategoryTable) out += fmt::format(",{}_ps", def.name);
  out += ",message\n";
  for (std::size_t i = 0; i < o.points.size(); ++i) {
    const Point& p = o.points[i];
    const PointRecord& r = o.records[i];
    std::string line = fmt::format("{},{},{},{},{},", csv_field(p.name), p.machine, p.nodes,
                                   csv_field(settings_text(p)), to_string(r.status));
    line += r.virtual_time_ps ? std::to_string(*r.virtual_time_ps) : "";
    line += ',' + (r.speedup ? fmt::format("{:.6g}", *r.speedup) : std::string());
    line += ',' + (r.verified ? std::string(*r.verified ? "1" : "0") : std::string());
    line += ',' + (r.wall_s ? fmt::format("{:.3f}", *r.wall_s) : std::string());
    for (const carnival::CategoryDef& def : carnival::kCategoryTable) {
      const auto c = std::find_if(r.categories.begin(), r.categories.end(),
                                  [&](const CategoryTime& t) { return t.category == def.name; });
      line += ',' + (c == r.categories.end() ? std::string() : std::to_string(c->time_ps));
    }
    out += line + ',' + csv_field(r.message) + "\n";
  }
  return out;
}

}  // namespace

std::string render_points(const SweepOutcome& outcome, ReportFormat format) {
  switch (format) {
    case ReportFormat::Json: {
      json points = json::array();
      for (std::size_t i = 0; i < outcome.points.size(); ++i)
        points.push_back(point_json(outcome.points[i], outcome.records[i]));
      const json doc = {
          {"database", outcome.db_path}, {"interrupted", outcome.interrupted}, {"points", points}};
      return doc.dump(2) + "\n";
    }
    case ReportFormat::Csv:
      return csv_table(outcome);
    case ReportFormat::Text:
      break;
  }
  return text_table(outcome);
}

std::string summary_text(const SweepOutcome& o) {
  std::size_t done = 0;
  std::size_t not_run = 0;
  std::string failures;
  for (std::size_t i = 0; i < o.points.size(); ++i) {
    const PointRecord& r = o.records[i];
    if (r.status == PointStatus::Done) ++done;
    if (r.status == PointStatus::NotRun) ++not_run;
    if (r.status == PointStatus::Failed)
      failures += fmt::format("  failed  {}: {} (log: {})\n", o.points[i].name, r.message,
                              point_files(o.points[i]).log);
  }
  const std::size_t failed = o.points.size() - done - not_run;
  std::string out = fmt::format(
      "sweep     {} points: {} done, {} failed, {} not run ({} run now, {} kept from before); {}\n",
      o.points.size(), done, failed, not_run, o.ran, o.kept, o.db_path);
  return out + failures;
}

}  // namespace ncp2::sweep
