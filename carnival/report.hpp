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

enum class ReportView { Scopes, Nodes, CPWait, Causes, Waits, Races };
enum class ReportFormat { Text, Markdown, Csv, Json };

std::string_view to_string(ReportView v);  // "scopes", "nodes", "cpwait", "causes", "waits", "races"
std::optional<ReportView> view_from_string(std::string_view name);
std::optional<ReportFormat> format_from_string(std::string_view name);  // "text", "markdown", "csv", "json"
// In the order of `all` (which shows races only for runs that detected them).
const std::vector<ReportView>& all_views();

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

// One side of a race in words: "node 0 writes at workloads/sor.cpp:42 (in relax)"; `scope` names
// the access's scope ("" to leave it out).
std::string describe_race_access(const RaceAccess& a, std::string_view scope);
// Where a race is: "'grid' byte 4096 (address 0x5a0000001000)".
std::string describe_race_place(const RaceRow& r);

// The glyphs of the bars: the PP categories (Comp, Extra, Wait, Prste), the CP categories
// (CPComp, CPWait, CPIdle), and the 9 wait parts in WaitPart order.
std::string_view category_glyph(Category c);
std::string_view part_glyph(WaitPart p);
// A bar of `length` cells split among `values` in proportion (largest remainders), each part
// drawn with its glyph.
std::string draw_bar(const std::vector<std::int64_t>& values, const std::vector<std::string_view>& glyphs,
                     std::size_t length);

}  // namespace ncp2::carnival
