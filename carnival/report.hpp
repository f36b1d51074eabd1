#pragma once
// Reports over one run's data (read back from the store): the scope tree, the nodes, the CPWait
// Map, the causes of synchronization delay, the largest waits; as text (with Unicode bars),
// Markdown, CSV or JSON. `ncp2 report` (cli/cmd_report.cpp) is the front end.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "carnival/model.hpp"

namespace ncp2::carnival {

enum class ReportView { Scopes, Nodes, CPWait, Causes, Waits };
enum class ReportFormat { Text, Markdown, Csv, Json };

std::string_view to_string(ReportView v);  // "scopes", "nodes", "cpwait", "causes", "waits"
std::optional<ReportView> view_from_string(std::string_view name);
std::optional<ReportFormat> format_from_string(std::string_view name);  // "text", "markdown", "csv", "json"
const std::vector<ReportView>& all_views();                             // in the order of `all`

struct ReportOptions {
  std::vector<ReportView> views = all_views();
  ReportFormat format = ReportFormat::Text;
  // Rows of the scopes (the hottest, with their ancestors), cpwait, causes and waits views; 0: all.
  std::size_t top = 20;
  std::size_t bar_width = 24;  // character cells of a full bar (text and Markdown)
};

// The report as one string (text and Markdown end with a newline; JSON is one object).
std::string render_report(const RunData& data, const ReportOptions& options);

// Human units with 3 significant digits: "0", "850 ps", "12.5 ns", "1.23 us", "45.6 ms", "2.00 s".
std::string format_ps(std::int64_t ps);

// The glyphs of the bars: the PP categories (Comp, Extra, Wait, Prste), the CP categories
// (CPComp, CPWait, CPIdle), and the 9 wait parts in WaitPart order.
std::string_view category_glyph(Category c);
std::string_view part_glyph(WaitPart p);
// A bar of `length` cells split among `values` in proportion (largest remainders), each part
// drawn with its glyph.
std::string draw_bar(const std::vector<std::int64_t>& values, const std::vector<std::string_view>& glyphs,
                     std::size_t length);

}  // namespace ncp2::carnival
