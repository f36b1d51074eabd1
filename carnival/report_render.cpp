// The report's renderers: Tables as text, Markdown, CSV and JSON (carnival/report_internal.hpp).
#include "carnival/report_internal.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <map>
#include <set>
#include <tuple>
#include <variant>

#include <fmt/format.h>

namespace ncp2::carnival::report_detail {

namespace {

std::size_t display_width(std::string_view s) {
  std::size_t n = 0;
  for (unsigned char c : s)
    if ((c & 0xC0) != 0x80) ++n;
  return n;
}

// ---------------------------------------------------------------------------------------------
// Rendering

bool shown_in(const Column& c, ReportFormat f) {
  const bool text = f == ReportFormat::Text || f == ReportFormat::Markdown;
  return c.shown == Shown::Both || (text ? c.shown == Shown::TextOnly : c.shown == Shown::DataOnly);
}

std::string human(const Value& v, Kind kind) {
  if (const auto* s = std::get_if<std::string>(&v)) return *s;
  if (const auto* u = std::get_if<std::uint64_t>(&v)) return fmt::format("{}", *u);
  if (const auto* d = std::get_if<double>(&v)) {
    if (kind == Kind::Delta) return fmt::format("{:+.1f}%", *d);
    return fmt::format("{:.1f}%", *d);
  }
  const auto i = std::get<std::int64_t>(v);
  if (kind == Kind::Time) return format_ps(i);
  if (i < 0 && kind == Kind::Count) return "-";
  return fmt::format("{}", i);
}

std::string raw(const Value& v) {
  if (const auto* s = std::get_if<std::string>(&v)) return *s;
  if (const auto* u = std::get_if<std::uint64_t>(&v)) return fmt::format("{}", *u);
  if (const auto* d = std::get_if<double>(&v)) return fmt::format("{:.4f}", *d);
  return fmt::format("{}", std::get<std::int64_t>(v));
}

json to_json(const Value& v, Kind kind) {
  if (const auto* s = std::get_if<std::string>(&v)) return *s;
  if (const auto* u = std::get_if<std::uint64_t>(&v)) return *u;
  if (const auto* d = std::get_if<double>(&v)) return std::round(*d * 10000.0) / 10000.0;
  const auto i = std::get<std::int64_t>(v);
  if (i < 0 && kind == Kind::Count) return nullptr;  // "none": no cause, no remote node, root's parent
  return i;
}

bool right_aligned(Kind k) {
  return k == Kind::Time || k == Kind::Count || k == Kind::Percent || k == Kind::Delta;
}

std::string pad(const std::string& s, std::size_t width, bool right) {
  const std::size_t w = display_width(s);
  if (w >= width) return s;
  return right ? std::string(width - w, ' ') + s : s + std::string(width - w, ' ');
}

}  // namespace

void render_text(const Table& t, std::string& out) {
  std::vector<std::size_t> cols;
  for (std::size_t c = 0; c < t.columns.size(); ++c)
    if (shown_in(t.columns[c], ReportFormat::Text)) cols.push_back(c);
  std::vector<std::vector<std::string>> cells;
  std::vector<std::size_t> width(t.columns.size(), 0);
  for (auto c : cols) width[c] = display_width(t.columns[c].label);
  for (const auto& row : t.rows) {
    std::vector<std::string> r(t.columns.size());
    for (auto c : cols) {
      r[c] = human(row[c], t.columns[c].kind);
      width[c] = std::max(width[c], display_width(r[c]));
    }
    cells.push_back(std::move(r));
  }
  auto line = [&](const std::vector<std::string>& r) {
    std::string s;
    for (std::size_t k = 0; k < cols.size(); ++k) {
      const auto c = cols[k];
      const bool last = k + 1 == cols.size();
      std::string cell = pad(r[c], last && !right_aligned(t.columns[c].kind) ? 0 : width[c],
                             right_aligned(t.columns[c].kind));
      s += (k ? "  " : "") + cell;
    }
    while (!s.empty() && s.back() == ' ') s.pop_back();
    out += s + "\n";
  };
  out += fmt::format("\n{}\n\n", t.title);
  std::vector<std::string> header(t.columns.size());
  std::vector<std::string> rule(t.columns.size());
  for (auto c : cols) {
    header[c] = t.columns[c].label;
    for (std::size_t i = 0; i < width[c]; ++i) rule[c] += "-";
  }
  line(header);
  line(rule);
  for (const auto& r : cells) line(r);
  if (t.rows.empty()) out += "(none)\n";
  if (!t.legend.empty() || !t.notes.empty()) out += "\n";
  for (const auto& l : t.legend) out += l + "\n";
  for (const auto& n : t.notes) out += n + "\n";
}

std::string markdown_cell(const std::string& s) {
  std::string out;
  for (char ch : s) {
    if (ch == '|')
      out += "\\|";
    else if (ch == '\n')
      out += ' ';
    else
      out += ch;
  }
  // Leading spaces (the scope tree's indentation) survive as no-break spaces.
  std::size_t lead = 0;
  while (lead < out.size() && out[lead] == ' ') ++lead;
  std::string indent;
  for (std::size_t i = 0; i < lead; ++i) indent += "\u00A0";
  return indent + out.substr(lead);
}

void render_markdown(const Table& t, std::string& out) {
  std::vector<std::size_t> cols;
  for (std::size_t c = 0; c < t.columns.size(); ++c)
    if (shown_in(t.columns[c], ReportFormat::Markdown)) cols.push_back(c);
  out += fmt::format("\n## {}\n\n", t.title);
  std::string header = "|", rule = "|";
  // Appended piece by piece, not " " + cell: GCC 12 at -O3 warns a false -Wrestrict on
  // const char* + std::string (GCC bug 105651).
  for (auto c : cols) {
    header += ' ';
    header += markdown_cell(t.columns[c].label);
    header += " |";
    rule += right_aligned(t.columns[c].kind) ? " ---: |" : " --- |";
  }
  out += header + "\n" + rule + "\n";
  for (const auto& row : t.rows) {
    std::string s = "|";
    for (auto c : cols) {
      const std::string cell = markdown_cell(human(row[c], t.columns[c].kind));
      s += " " + (t.columns[c].kind == Kind::Bar && !cell.empty() ? "`" + cell + "`" : cell) + " |";
    }
    out += s + "\n";
  }
  if (!t.legend.empty() || !t.notes.empty()) out += "\n";
  for (const auto& l : t.legend) out += "`" + l + "`\n\n";
  for (const auto& n : t.notes) out += "*" + n + "*\n\n";
}

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string out = "\"";
  for (char ch : s) out += ch == '"' ? std::string("\"\"") : std::string(1, ch);
  return out + "\"";
}

void render_csv(const Table& t, std::string& out) {
  std::vector<std::size_t> cols;
  for (std::size_t c = 0; c < t.columns.size(); ++c)
    if (shown_in(t.columns[c], ReportFormat::Csv)) cols.push_back(c);
  // Appended piece by piece, not "," + field: GCC 12 at -O3 warns a false -Wrestrict on
  // const char* + std::string (GCC bug 105651).
  std::string header;
  for (auto c : cols) {
    if (!header.empty()) header += ',';
    header += csv_field(t.columns[c].key);
  }
  out += header + "\n";
  for (const auto& row : t.rows) {
    std::string s;
    for (std::size_t k = 0; k < cols.size(); ++k) {
      const auto c = cols[k];
      const auto* i = std::get_if<std::int64_t>(&row[c]);
      const bool none = i && *i < 0 && t.columns[c].kind == Kind::Count;
      if (k) s += ',';
      if (!none) s += csv_field(raw(row[c]));
    }
    out += s + "\n";
  }
}

json table_json(const Table& t) {
  json rows = json::array();
  for (const auto& row : t.rows) {
    json r = json::object();
    for (std::size_t c = 0; c < t.columns.size(); ++c)
      if (shown_in(t.columns[c], ReportFormat::Json))
        r[t.columns[c].key] = to_json(row[c], t.columns[c].kind);
    rows.push_back(std::move(r));
  }
  json j = t.extra;
  j["title"] = t.title;
  j["rows"] = std::move(rows);
  j["notes"] = t.notes;
  return j;
}

std::string status_warning(const RunInfo& r) {
  if (r.status == "incomplete")
    return "WARNING: this run is INCOMPLETE (interrupted before its end): the results are partial";
  if (r.status == "failed") return "WARNING: this run FAILED: the results cover the run up to its failure";
  if (r.status == "deadlock")
    return "WARNING: this run DEADLOCKED: the results cover the run until every node was blocked (see the "
           "message)";
  return "";
}

json run_json(const RunData& d) {
  const auto& r = d.run;
  json parameters = json::parse(r.parameters, nullptr, false);
  if (parameters.is_discarded()) parameters = r.parameters;
  return {{"workload", r.workload},
          {"machine", r.machine},
          {"nodes", r.nodes},
          {"status", r.status},
          {"virtual_time_ps", r.virtual_time_ps},
          {"parameters", parameters},
          {"seed", r.seed},
          {"started_at", r.started_at},
          {"wall_seconds", r.wall_seconds},
          {"verified", r.verified},
          {"message", r.message},
          {"waits_stored", d.waits.size()},
          {"waits_dropped", d.waits_dropped},
          {"timeline_dropped", d.timeline_dropped},
          {"race_detection", d.races_checked},
          {"races", d.races.size()}};
}

std::vector<std::pair<std::string, std::string>> header_lines(const RunData& d) {
  const auto& r = d.run;
  std::string status = r.status;
  if (const auto w = status_warning(r); !w.empty()) status = w;
  std::string workload = r.workload;
  if (!r.parameters.empty() && r.parameters != "{}") workload += " " + r.parameters;
  workload += fmt::format(", seed {}", r.seed);
  std::vector<std::pair<std::string, std::string>> lines = {
      {"workload", workload},
      {"machine", fmt::format("{}, {} node{}", r.machine, r.nodes, r.nodes == 1 ? "" : "s")},
      {"status", status},
      // A real run's times are measured (on node 0's clock), not emulated.
      r.machine == "real" ? std::pair<std::string, std::string>{"time", format_ps(r.virtual_time_ps) +
                                                                            " (measured, node 0's clock)"}
                          : std::pair<std::string, std::string>{"virtual time", format_ps(r.virtual_time_ps) +
                                                                                    " (timed region)"},
      {"verified", (r.verified ? std::string("yes") : std::string("NO")) +
                       (r.message.empty() ? std::string() : ": " + r.message)}};
  if (d.races_checked)
    lines.emplace_back("data races", d.races.empty()
                                         ? std::string("none found")
                                         : fmt::format("{} (see the races view)", d.races.size()));
  return lines;
}

}  // namespace ncp2::carnival::report_detail
