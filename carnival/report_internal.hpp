#pragma once
// INTERNAL to the report (carnival/report*.cpp): a view computes a Table of typed values,
// independent of the format; the renderers turn Tables into text, Markdown, CSV or JSON.
#include <cstdint>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "carnival/report.hpp"
#include "carnival/scope_tree.hpp"

namespace ncp2::carnival::report_detail {

using nlohmann::json;

// ---------------------------------------------------------------------------------------------
// Tables: what a view computes, independent of the format.

enum class Kind { Text, Time, Count, Percent, Delta, Bar };
enum class Shown { Both, TextOnly, DataOnly };  // text and Markdown | CSV and JSON

struct Column {
  std::string label;  // text and Markdown header
  std::string key;    // CSV header and JSON member
  Kind kind = Kind::Text;
  Shown shown = Shown::Both;
};

using Value = std::variant<std::string, std::int64_t, double, std::uint64_t>;  // uint64: ids, never "none"

struct Table {
  ReportView view = ReportView::Scopes;
  std::string title;
  std::vector<Column> columns;
  std::vector<std::vector<Value>> rows;
  std::vector<std::string> legend;  // text and Markdown
  std::vector<std::string> notes;   // text, Markdown, JSON
  json extra = json::object();      // JSON only
};

// The views (report_views.cpp).
Table scopes_view(const RunData& d, const ScopeTree& shape, const ReportOptions& o);
Table nodes_view(const RunData& d, const ReportOptions& o);
Table cpwait_view(const RunData& d, const ScopeTree& tree, const ReportOptions& o);
Table causes_view(const RunData& d, const ScopeTree& tree, const ReportOptions& o);
Table waits_view(const RunData& d, const ScopeTree& tree, const ReportOptions& o);
Table races_view(const RunData& d, const ScopeTree& tree, const ReportOptions& o);  // report_races.cpp

// The renderers (report_render.cpp).
void render_text(const Table& t, std::string& out);
void render_markdown(const Table& t, std::string& out);
void render_csv(const Table& t, std::string& out);
json table_json(const Table& t);
std::string markdown_cell(const std::string& s);
std::string status_warning(const RunInfo& r);
json run_json(const RunData& d);
std::vector<std::pair<std::string, std::string>> header_lines(const RunData& d);

}  // namespace ncp2::carnival::report_detail
