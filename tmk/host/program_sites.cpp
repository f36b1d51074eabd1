#include "tmk/host/program_sites.hpp"

#include <algorithm>
#include <filesystem>

#include <fmt/format.h>

#include "carnival/scope_sites.hpp"
#include "debug_info/source_lines.hpp"

namespace ncp2::tmk {

using debug_info::SourceLine;

ProgramSites::ProgramSites(std::string program) : program_(std::move(program)) {}

ProgramSites::~ProgramSites() = default;

const debug_info::SourceLines* ProgramSites::load(std::uint64_t load_base) {
  if (!lines_)
    lines_ =
        std::make_unique<debug_info::SourceLines>(lines_file_.empty() ? program_ : lines_file_, load_base);
  return lines_.get();
}

const ProgramSites::Sites& ProgramSites::at(std::uint64_t pc) {
  if (const auto it = sites_by_pc_.find(pc); it != sites_by_pc_.end()) return it->second;
  Sites sites;
  const SourceLine l = lines_ ? lines_->at(pc) : SourceLine{};
  if (l.known()) {
    if (l.function_begin > 0 && l.function_end >= l.function_begin)
      sites.function =
          carnival::site_for(l.function, "function", l.file, l.function_begin, l.function_end).id;
    sites.line = carnival::site_for(fmt::format("line {}", l.line), "line", l.file, l.line, l.line).id;
  }
  return sites_by_pc_.emplace(pc, sites).first->second;
}

std::string ProgramSites::resolve_file(const std::string& file) const {
  namespace fs = std::filesystem;
  if (fs::path(file).is_absolute() || file.empty()) return file;
  if (lines_)
    for (const auto& known : lines_->files())
      if (known.ends_with("/" + file) || fs::path(known).filename() == fs::path(file).filename())
        return known;
  return (fs::absolute(program_).parent_path() / file).lexically_normal().string();
}

std::string ProgramSites::where(const Channel& c) const {
  // A crash without a place of its own (the fiber runner's abort(): no signal) is placed by its frames.
  if (!lines_ || (c.pc == 0 && (c.request != Request::Crash || c.frame_count == 0))) return {};
  const bool fault = c.request == Request::Fault || c.request == Request::Crash;
  const std::uint64_t key = c.pc * 2 + (fault ? 1 : 0);
  if (c.request != Request::Crash)
    if (const auto it = where_by_pc_.find(key); it != where_by_pc_.end()) return it->second;
  const SourceLine line = fault ? lines_->at(c.pc) : lines_->before_return(c.pc);
  if (c.request == Request::Crash && !line.known()) {
    // Inside a library (abort, a bad free): the program's innermost frame on the stack.
    for (std::uint32_t i = 0; i < std::min<std::uint32_t>(c.frame_count, 16); ++i) {
      const SourceLine frame = lines_->before_return(c.frames[i]);
      if (frame.known() && !frame.file.ends_with("tmk_runtime.cpp") &&
          !frame.file.ends_with("fiber_mode.cpp") && !frame.file.ends_with("fiber_libc.cpp"))
        return fmt::format(" in a library call at {}", frame.describe(c.frames[i]));
    }
  }
  std::string text = " at " + line.describe(c.pc);
  if (c.request != Request::Crash) where_by_pc_.emplace(key, text);
  return text;
}

}  // namespace ncp2::tmk
