#include "carnival/scope_sites.hpp"

#include <array>
#include <cstdint>
#include <deque>
#include <map>
#include <mutex>
#include <tuple>
#include <utility>

#include <fmt/format.h>

namespace ncp2::carnival {

namespace {
std::mutex& sites_mutex() {
  static std::mutex m;
  return m;
}
std::vector<const ScopeSite*>& sites() {
  static std::vector<const ScopeSite*> s;
  return s;
}
}  // namespace

ScopeSite::ScopeSite(const char* site_name, const char* site_kind, SourcePosition where)
    : name(site_name), kind(site_kind), file(where.file), line(where.line), column(where.column) {
  std::lock_guard lock(sites_mutex());
  sites().push_back(this);
  id = static_cast<std::uint32_t>(sites().size());
}

ScopeSite::ScopeSite(const char* site_name, const char* site_kind, const char* site_file, int site_line,
                     int site_end_line)
    : name(site_name), kind(site_kind), file(site_file), line(site_line), column(0), end_line(site_end_line) {
  std::lock_guard lock(sites_mutex());
  sites().push_back(this);
  id = static_cast<std::uint32_t>(sites().size());
}

std::vector<const ScopeSite*> scope_sites() {
  std::lock_guard lock(sites_mutex());
  return sites();
}

namespace {

class RuntimeSites {
 public:
  static RuntimeSites& instance() {
    static RuntimeSites sites;
    return sites;
  }
  ScopeSite& get(const std::string& name, const char* kind, const std::string& file, int line, int end_line) {
    const std::lock_guard lock(mutex_);
    auto key = std::make_tuple(name, std::string(kind), file, line, end_line);
    if (const auto it = sites_.find(key); it != sites_.end()) return *it->second;
    const char* kept_name = keep(name);
    const char* kept_file = keep(file);
    auto& site = storage_.emplace_back(kept_name, kind, kept_file, line, end_line);
    sites_.emplace(std::move(key), &site);
    return site;
  }
  // By the position's own pointers: a call site's file name is one string for the process.
  std::uint32_t line(const SourcePosition& at) {
    {
      const std::lock_guard lock(mutex_);
      if (const auto it = lines_.find({at.file, at.line}); it != lines_.end()) return it->second;
    }
    const std::uint32_t id = get(fmt::format("line {}", at.line), "line", at.file, at.line, at.line).id;
    const std::lock_guard lock(mutex_);
    lines_.emplace(std::make_pair(at.file, at.line), id);
    return id;
  }

 private:
  const char* keep(const std::string& text) { return strings_.emplace_back(text).c_str(); }
  std::mutex mutex_;
  std::deque<std::string> strings_;
  std::deque<ScopeSite> storage_;
  std::map<std::tuple<std::string, std::string, std::string, int, int>, ScopeSite*> sites_;
  std::map<std::pair<const char*, int>, std::uint32_t> lines_;
};

}  // namespace

ScopeSite& site_for(const std::string& name, const char* kind, const std::string& file, int line,
                    int end_line) {
  return RuntimeSites::instance().get(name, kind, file, line, end_line);
}

std::uint32_t line_scope(const SourcePosition& at) {
  // Called at every charge of a profiled run: a per-thread cache of recent call sites spares the
  // registry's mutex and map (a site's id never changes).
  struct Recent {
    const char* file = nullptr;
    int line = 0;
    std::uint32_t id = 0;
  };
  thread_local std::array<Recent, 64> recent{};
  const std::size_t slot = ((reinterpret_cast<std::uintptr_t>(at.file) >> 4) ^
                            (static_cast<std::uintptr_t>(at.line) * 0x9E3779B1U)) %
                           recent.size();
  Recent& r = recent[slot];
  if (r.file != at.file || r.line != at.line || r.file == nullptr)
    r = {at.file, at.line, RuntimeSites::instance().line(at)};
  return r.id;
}

int scope_end_line(std::string_view text, int line, int column) {
  // Offset of (line, column); column 0 means "end of that line".
  std::size_t offset = 0;
  for (int l = 1; l < line && offset < text.size(); ++l) {
    const auto nl = text.find('\n', offset);
    if (nl == std::string_view::npos) return line;
    offset = nl + 1;
  }
  if (offset >= text.size()) return line;
  if (column > 0) {
    offset = std::min(text.size(), offset + static_cast<std::size_t>(column - 1));
  } else {
    const auto nl = text.find('\n', offset);
    offset = nl == std::string_view::npos ? text.size() : nl;
  }
  // Walk the whole text once, skipping comments and literals, with a stack of open braces.
  std::vector<std::size_t> open;
  std::size_t enclosing_depth = 0;
  bool found_enclosing = false;
  int current_line = 1;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (!found_enclosing && i >= offset) {
      if (open.empty()) return line;
      enclosing_depth = open.size();
      found_enclosing = true;
    }
    const char c = text[i];
    if (c == '\n') {
      ++current_line;
    } else if (c == '/' && i + 1 < text.size() && text[i + 1] == '/') {
      while (i + 1 < text.size() && text[i + 1] != '\n') ++i;
    } else if (c == '/' && i + 1 < text.size() && text[i + 1] == '*') {
      i += 2;
      while (i + 1 < text.size() && !(text[i] == '*' && text[i + 1] == '/')) {
        if (text[i] == '\n') ++current_line;
        ++i;
      }
      ++i;
    } else if (c == '"' || c == '\'') {
      for (++i; i < text.size() && text[i] != c; ++i) {
        if (text[i] == '\\')
          ++i;
        else if (text[i] == '\n')
          ++current_line;
      }
    } else if (c == '{') {
      open.push_back(i);
    } else if (c == '}') {
      if (found_enclosing && open.size() == enclosing_depth) return current_line;
      if (!open.empty()) open.pop_back();
    }
  }
  return line;
}

}  // namespace ncp2::carnival
