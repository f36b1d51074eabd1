// render_comparison: the text table, CSV and JSON of `ncp2 compare`.
#include <algorithm>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "carnival/compare.hpp"
#include "carnival/report.hpp"

namespace ncp2::carnival {

namespace {

using nlohmann::json;

std::string signed_ps(std::int64_t ps) { return ps > 0 ? "+" + format_ps(ps) : format_ps(ps); }

std::string ratio_text(const CompareRow& r) {
  const auto q = r.ratio();
  return q ? fmt::format("{:.2f}x", *q) : "-";
}

std::string side_text(const std::optional<std::int64_t>& ps) { return ps ? format_ps(*ps) : "-"; }

std::string run_line(const RunInfo& r, const std::string& path) {
  return fmt::format("{} on {}, {} nodes, {}, {} virtual ({})", r.workload, r.machine, r.nodes, r.status,
                     format_ps(r.virtual_time_ps), path);
}

std::string render_text(const Comparison& c) {
  std::string out = fmt::format("A: {}\nB: {}\n", run_line(c.a, c.a_path), run_line(c.b, c.b_path));
  for (const auto& n : c.notes) out += "Note: " + n + "\n";
  std::size_t key_width = 4;
  for (const auto& r : c.rows) key_width = std::max(key_width, r.key.size());
  key_width = std::min<std::size_t>(key_width, 60);
  auto line = [&](std::string_view section, std::string_view key, std::string_view a, std::string_view b,
                  std::string_view d, std::string_view q) {
    out += fmt::format("{:<9} {:<{}} {:>10} {:>10} {:>11} {:>8}\n", section, key, key_width, a, b, d, q);
  };
  out += "\n";
  line("section", "what", "A", "B", "B-A", "B/A");
  for (const auto& r : c.rows) {
    std::string key = r.key;
    // Keep the end (the file's lines) of a long scope label.
    if (key.size() > key_width) key = "..." + key.substr(key.size() - key_width + 3);
    line(to_string(r.section), key, side_text(r.a_ps), side_text(r.b_ps), signed_ps(r.diff_ps()),
         ratio_text(r));
  }
  return out;
}

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string q = "\"";
  for (char ch : s) q += ch == '"' ? std::string("\"\"") : std::string(1, ch);
  return q + "\"";
}

std::string render_csv(const Comparison& c) {
  std::string out = "section,what,a_ps,b_ps,diff_ps,ratio\n";
  auto opt = [](const std::optional<std::int64_t>& v) { return v ? std::to_string(*v) : std::string(); };
  for (const auto& r : c.rows) {
    const auto q = r.ratio();
    out += fmt::format("{},{},{},{},{},{}\n", to_string(r.section), csv_field(r.key), opt(r.a_ps),
                       opt(r.b_ps), r.diff_ps(), q ? fmt::format("{:.6g}", *q) : std::string());
  }
  return out;
}

json run_json(const RunInfo& r, const std::string& path) {
  json parameters = json::parse(r.parameters, nullptr, false);
  if (parameters.is_discarded()) parameters = r.parameters;
  return {{"file", path},
          {"workload", r.workload},
          {"machine", r.machine},
          {"nodes", r.nodes},
          {"status", r.status},
          {"virtual_time_ps", r.virtual_time_ps},
          {"parameters", parameters},
          {"verified", r.verified}};
}

std::string render_json(const Comparison& c) {
  json rows = json::array();
  auto opt = [](const std::optional<std::int64_t>& v) { return v ? json(*v) : json(nullptr); };
  for (const auto& r : c.rows) {
    const auto q = r.ratio();
    rows.push_back({{"section", to_string(r.section)},
                    {"what", r.key},
                    {"a_ps", opt(r.a_ps)},
                    {"b_ps", opt(r.b_ps)},
                    {"diff_ps", r.diff_ps()},
                    {"ratio", q ? json(*q) : json(nullptr)}});
  }
  json j = {{"a", run_json(c.a, c.a_path)},
            {"b", run_json(c.b, c.b_path)},
            {"same_program", c.same_program},
            {"notes", c.notes},
            {"rows", rows}};
  // Names come from the file: invalid UTF-8 in a damaged one becomes U+FFFD, not an exception.
  return j.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

}  // namespace

std::string render_comparison(const Comparison& c, CompareFormat format) {
  switch (format) {
    case CompareFormat::Csv:
      return render_csv(c);
    case CompareFormat::Json:
      return render_json(c);
    case CompareFormat::Text:
      break;
  }
  return render_text(c);
}

}  // namespace ncp2::carnival
