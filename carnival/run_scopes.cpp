#include "carnival/run_scopes.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <utility>

#include "carnival/scope_sites.hpp"

namespace ncp2::carnival {

namespace {

// A path as recorded by the compiler. A compiler may record it relative to its working directory
// (ccache with base_dir does that), which for our build is the build tree: resolved from there.
std::string source_path(const std::string& file) {
#ifdef NCP2_BUILD_DIR
  const std::filesystem::path path(file);
  if (path.is_relative()) return (std::filesystem::path(NCP2_BUILD_DIR) / path).lexically_normal().string();
#endif
  return file;
}

}  // namespace

// Paths as recorded by the compiler, made relative to the source tree when inside it.
std::string relative_source_path(const std::string& file) {
  std::string path = source_path(file);
#ifdef NCP2_SOURCE_DIR
  const std::string root = std::string(NCP2_SOURCE_DIR) + "/";
  if (path.rfind(root, 0) == 0) return path.substr(root.size());
#endif
  return path;
}

namespace {

std::string relative_path(const std::string& file) { return relative_source_path(file); }

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return {};
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

using Texts = std::map<std::string, std::string>;  // relative path -> text ("" if unreadable)
using Sites = std::vector<const ScopeSite*>;       // site id - 1 -> site

bool known(std::uint32_t id, const Sites& sites) { return id != 0 && id <= sites.size(); }

std::pair<int, int> line_range(const ScopeSite& site, Texts& texts) {
  if (site.end_line > 0) return {site.line, site.end_line};
  const std::string& text = texts[relative_path(site.file)];
  return {site.line, text.empty() ? site.line : scope_end_line(text, site.line, site.column)};
}

// Scopes with no time of their own (a loop whose body is all inner scopes) still belong in the
// tree between the scopes they enclose and their own parents: add every registered site of the
// same files whose line range strictly contains a used scope's.
void add_enclosing_sites(std::set<std::uint32_t>& used, const Sites& sites, Texts& texts) {
  std::vector<std::pair<std::string, std::pair<int, int>>> used_ranges;
  for (std::uint32_t id : used)
    if (known(id, sites))
      used_ranges.emplace_back(relative_path(sites[id - 1]->file), line_range(*sites[id - 1], texts));
  for (const ScopeSite* site : sites) {
    if (used.count(site->id) || !texts.count(relative_path(site->file))) continue;
    const std::string rel = relative_path(site->file);
    const auto [site_begin, site_end] = line_range(*site, texts);
    for (const auto& [file, range] : used_ranges) {
      if (file == rel && site_begin <= range.first && range.second <= site_end &&
          (site_begin < range.first || range.second < site_end)) {
        used.insert(site->id);
        break;
      }
    }
  }
}

// Scope 0. The whole program lies in the workload's file when its scopes all come from one file.
Scope program_scope(const std::set<std::uint32_t>& used, const Sites& sites, Texts& texts,
                    const std::string& name) {
  Scope program;
  program.id = 0;
  program.parent = -1;
  program.name = name;
  program.kind = "program";
  std::set<std::string> scope_files;
  for (std::uint32_t id : used)
    if (known(id, sites)) scope_files.insert(relative_path(sites[id - 1]->file));
  if (scope_files.size() == 1) {
    program.file = *scope_files.begin();
    const std::string& text = texts[program.file];
    program.begin_line = 1;
    program.end_line = static_cast<int>(std::count(text.begin(), text.end(), '\n')) + 1;
  }
  return program;
}

// Each scope's parent: the smallest other scope of its file whose range strictly contains its own.
void nest_by_range(std::vector<Scope>& scopes) {
  for (auto& s : scopes) {
    if (s.id == 0) continue;
    s.parent = 0;
    int best_span = -1;
    for (const auto& other : scopes) {
      if (other.id == 0 || other.id == s.id || other.file != s.file) continue;
      const bool contains = other.begin_line <= s.begin_line && s.end_line <= other.end_line &&
                            (other.begin_line < s.begin_line || s.end_line < other.end_line);
      const int span = other.end_line - other.begin_line;
      if (contains && (best_span < 0 || span < best_span)) {
        best_span = span;
        s.parent = other.id;
      }
    }
  }
}

}  // namespace

RunScopes collect_run_scopes(std::set<std::uint32_t> used, const std::string& program_name) {
  const Sites sites = scope_sites();
  Texts texts;
  for (std::uint32_t id : used) {
    if (!known(id, sites)) continue;
    const std::string rel = relative_path(sites[id - 1]->file);
    if (!texts.count(rel)) texts[rel] = read_text(source_path(sites[id - 1]->file));
  }
  add_enclosing_sites(used, sites, texts);

  RunScopes out;
  out.scopes.push_back(program_scope(used, sites, texts, program_name));
  for (std::uint32_t id : used) {
    if (!known(id, sites)) continue;
    const ScopeSite& site = *sites[id - 1];
    Scope s;
    s.id = id;
    s.name = site.name;
    s.kind = site.kind;
    s.file = relative_path(site.file);
    std::tie(s.begin_line, s.end_line) = line_range(site, texts);
    out.scopes.push_back(std::move(s));
  }
  nest_by_range(out.scopes);
  for (auto& [file, text] : texts)
    if (!text.empty()) out.sources.push_back({file, text});
  return out;
}

}  // namespace ncp2::carnival
