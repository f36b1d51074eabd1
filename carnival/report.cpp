#include "carnival/report.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <map>
#include <set>
#include <tuple>
#include <variant>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "carnival/report_internal.hpp"
#include "carnival/scope_tree.hpp"

namespace ncp2::carnival {

using nlohmann::json;

std::string_view to_string(ReportView v) {
  switch (v) {
    case ReportView::Scopes:
      return "scopes";
    case ReportView::Nodes:
      return "nodes";
    case ReportView::CPWait:
      return "cpwait";
    case ReportView::Causes:
      return "causes";
    case ReportView::Waits:
      return "waits";
    case ReportView::Races:
      return "races";
  }
  return "?";
}

const std::vector<ReportView>& all_views() {
  static const std::vector<ReportView> views = {ReportView::Scopes, ReportView::Nodes, ReportView::CPWait,
                                                ReportView::Causes, ReportView::Waits, ReportView::Races};
  return views;
}

std::optional<ReportView> view_from_string(std::string_view name) {
  for (auto v : all_views())
    if (to_string(v) == name) return v;
  return std::nullopt;
}

std::optional<ReportFormat> format_from_string(std::string_view name) {
  if (name == "text") return ReportFormat::Text;
  if (name == "markdown") return ReportFormat::Markdown;
  if (name == "csv") return ReportFormat::Csv;
  if (name == "json") return ReportFormat::Json;
  return std::nullopt;
}

std::string format_ps(std::int64_t ps) {
  if (ps == 0) return "0";
  const double magnitude = std::abs(static_cast<double>(ps));
  if (magnitude < 999.5) return fmt::format("{} ps", ps);
  static constexpr std::array<std::pair<double, const char*>, 4> units = {
      {{1e3, "ns"}, {1e6, "us"}, {1e9, "ms"}, {1e12, "s"}}};
  // The largest unit in which the value shows at least 1 after rounding (999.7 us is "1.00 ms").
  std::size_t u = 0;
  while (u + 1 < units.size() && magnitude >= units[u + 1].first * 0.9995) ++u;
  const double v = static_cast<double>(ps) / units[u].first;
  const double a = std::abs(v);
  if (a >= 99.95) return fmt::format("{:.0f} {}", v, units[u].second);
  if (a >= 9.995) return fmt::format("{:.1f} {}", v, units[u].second);
  return fmt::format("{:.2f} {}", v, units[u].second);
}

std::string_view category_glyph(Category c) { return info(c).glyph; }

std::string_view part_glyph(WaitPart p) { return info(p).glyph; }

std::string draw_bar(const std::vector<std::int64_t>& values, const std::vector<std::string_view>& glyphs,
                     std::size_t length) {
  long double sum = 0;
  for (auto v : values) sum += static_cast<long double>(std::max<std::int64_t>(v, 0));
  std::string out;
  if (sum <= 0 || length == 0) return out;
  // Largest remainders: floor of each share, then one more cell to the largest fractions.
  std::vector<std::size_t> cells(values.size());
  std::vector<std::pair<long double, std::size_t>> remainders;
  std::size_t used = 0;
  for (std::size_t i = 0; i < values.size(); ++i) {
    const long double exact = static_cast<long double>(length) *
                              static_cast<long double>(std::max<std::int64_t>(values[i], 0)) / sum;
    cells[i] = static_cast<std::size_t>(std::floor(exact));
    used += cells[i];
    remainders.emplace_back(exact - static_cast<long double>(cells[i]), i);
  }
  std::stable_sort(remainders.begin(), remainders.end(),
                   [](const auto& a, const auto& b) { return a.first > b.first; });
  for (std::size_t k = 0; used < length && k < remainders.size(); ++k, ++used) ++cells[remainders[k].second];
  for (std::size_t i = 0; i < values.size(); ++i)
    for (std::size_t n = 0; n < cells[i]; ++n) out += glyphs[i];
  return out;
}

std::string render_report(const RunData& d, const ReportOptions& o) {
  using namespace report_detail;  // NOLINT(google-build-using-namespace): the report's own parts
  const ScopeTree tree(d.scopes, mentioned_scopes(d));
  std::vector<Table> tables;
  for (auto v : o.views) {
    if (v == ReportView::Races && !d.races_checked && o.views == all_views()) continue;  // nothing to say
    switch (v) {
      case ReportView::Scopes:
        tables.push_back(scopes_view(d, tree, o));
        break;
      case ReportView::Nodes:
        tables.push_back(nodes_view(d, o));
        break;
      case ReportView::CPWait:
        tables.push_back(cpwait_view(d, tree, o));
        break;
      case ReportView::Causes:
        tables.push_back(causes_view(d, tree, o));
        break;
      case ReportView::Waits:
        tables.push_back(waits_view(d, tree, o));
        break;
      case ReportView::Races:
        tables.push_back(races_view(d, tree, o));
        break;
    }
  }
  std::string out;
  switch (o.format) {
    case ReportFormat::Text:
      out += "CARNIVAL report\n";
      for (const auto& [key, value] : header_lines(d)) out += fmt::format("{:<13}{}\n", key, value);
      for (const auto& t : tables) render_text(t, out);
      break;
    case ReportFormat::Markdown:
      out += fmt::format("# CARNIVAL report: {}\n\n", d.run.workload);
      if (const auto w = status_warning(d.run); !w.empty()) out += "> **" + w + "**\n\n";
      for (const auto& [key, value] : header_lines(d))
        out += fmt::format("- **{}**: {}\n", key, markdown_cell(value));
      for (const auto& t : tables) render_markdown(t, out);
      break;
    case ReportFormat::Csv:
      for (std::size_t i = 0; i < tables.size(); ++i) {
        if (tables.size() > 1) out += fmt::format("{}# {}\n", i ? "\n" : "", to_string(tables[i].view));
        render_csv(tables[i], out);
      }
      break;
    case ReportFormat::Json: {
      json j = json::object();
      j["run"] = run_json(d);
      for (const auto& t : tables) j[std::string(to_string(t.view))] = table_json(t);
      // Names and messages come from the file: text that is not UTF-8 is shown replaced (U+FFFD),
      // not refused (the JSON library's default).
      out = j.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
      break;
    }
  }
  return out;
}

}  // namespace ncp2::carnival