#include "debug_info/source_lines.hpp"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <map>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>

namespace ncp2::debug_info {

namespace {
const Dwfl_Callbacks kOfflineCallbacks = {dwfl_build_id_find_elf, dwfl_standard_find_debuginfo,
                                          dwfl_offline_section_address, nullptr};

std::string absolute(const char* file, const char* comp_dir) {
  if (!file) return {};
  std::filesystem::path p(file);
  if (p.is_relative() && comp_dir) p = std::filesystem::path(comp_dir) / p;
  return p.lexically_normal().string();
}

bool system_header(const std::string& file) { return file.rfind("/usr/", 0) == 0; }
}  // namespace

struct SourceLines::Impl {
  Dwfl* dwfl = nullptr;
  Dwfl_Module* module = nullptr;
  mutable std::map<std::uint64_t, SourceLine> cache;
  mutable std::vector<std::string> files;
  mutable bool files_listed = false;
};

SourceLines::SourceLines(const std::string& path, std::uint64_t load_base) : impl_(std::make_unique<Impl>()) {
  impl_->dwfl = dwfl_begin(&kOfflineCallbacks);
  if (!impl_->dwfl) return;
  dwfl_report_begin(impl_->dwfl);
  impl_->module = dwfl_report_elf(impl_->dwfl, "program", path.c_str(), -1, load_base, false);
  dwfl_report_end(impl_->dwfl, nullptr, nullptr);
  if (!impl_->module) return;
  Dwarf_Addr bias = 0;
  has_lines_ = dwfl_module_getdwarf(impl_->module, &bias) != nullptr;
}

SourceLines::~SourceLines() {
  if (impl_->dwfl) dwfl_end(impl_->dwfl);
}

namespace {

// The compile unit containing `pc` (searched directly: clang emits no .debug_aranges by default,
// which libdwfl's own lookups need).
Dwarf_Die* unit_at(Dwfl_Module* module, Dwarf_Addr pc, Dwarf_Addr& bias) {
  for (Dwarf_Die* cu = dwfl_module_nextcu(module, nullptr, &bias); cu;
       cu = dwfl_module_nextcu(module, cu, &bias))
    if (dwarf_haspc(cu, pc - bias) == 1) return cu;
  return nullptr;
}

// The function's last line: the largest line of the rows inside its code (its last instruction
// may belong to an earlier line: code the compiler or the counting pass placed at the end). `fn`
// is a function or one inlined copy of it (its address ranges: that copy's code), `file` its
// source file.
int last_line(Dwarf_Die* cu, Dwarf_Die* fn, int first, const char* file) {
  Dwarf_Lines* lines = nullptr;
  std::size_t count = 0;
  if (dwarf_getsrclines(cu, &lines, &count) != 0) return first;
  std::vector<std::pair<Dwarf_Addr, Dwarf_Addr>> ranges;
  Dwarf_Addr base = 0;
  Dwarf_Addr low = 0;
  Dwarf_Addr high = 0;
  for (ptrdiff_t at = 0; (at = dwarf_ranges(fn, at, &base, &low, &high)) > 0;) ranges.emplace_back(low, high);
  if (ranges.empty()) return first;
  // The function's file: its declaration's, or (libdw cannot always name DWARF 5's file 0) the
  // file of its first row.
  if (!file)
    if (Dwarf_Line* first_row = dwarf_getsrc_die(cu, ranges.front().first))
      file = dwarf_linesrc(first_row, nullptr, nullptr);
  int last = first;
  for (std::size_t i = 0; i < count; ++i) {
    Dwarf_Line* row = dwarf_onesrcline(lines, i);
    Dwarf_Addr address = 0;
    int line = 0;
    if (!row || dwarf_lineaddr(row, &address) != 0) continue;
    if (std::none_of(ranges.begin(), ranges.end(),
                     [&](const auto& r) { return address >= r.first && address < r.second; }))
      continue;
    if (dwarf_lineno(row, &line) != 0 || line <= last) continue;
    const char* row_file = dwarf_linesrc(row, nullptr, nullptr);
    if (file && row_file && std::strcmp(file, row_file) != 0) continue;  // inlined from elsewhere
    last = line;
  }
  return last;
}

// Whether `a` and `b` name the same file (one may be relative to the unit's directory).
bool same_file(const char* a, const std::string& b) {
  if (!a || b.empty()) return false;
  const std::string_view x(a);
  return b == x || b.ends_with("/" + std::string(x)) || x.ends_with("/" + b);
}

// The function around `address` and its line range: its declaration line to its last line. The
// innermost function whose source is the line's own file: a function of the program inlined into
// another (DW_TAG_inlined_subroutine) is that function, as at -O0 (issue 36), while code inlined
// from a header leaves the program's function around it.
void function_range(Dwarf_Die* cu, Dwarf_Addr address, SourceLine& out) {
  Dwarf_Die* scopes = nullptr;
  const int n = dwarf_getscopes(cu, address, &scopes);
  Dwarf_Die origin_memory;
  for (int i = 0; i < n; ++i) {
    const int tag = dwarf_tag(&scopes[i]);
    if (tag != DW_TAG_inlined_subroutine && tag != DW_TAG_subprogram) continue;
    // An inlined copy names its function through DW_AT_abstract_origin.
    Dwarf_Die* named = &scopes[i];
    Dwarf_Attribute attribute;
    if (tag == DW_TAG_inlined_subroutine) {
      named = dwarf_formref_die(dwarf_attr(&scopes[i], DW_AT_abstract_origin, &attribute), &origin_memory);
      // libdw cannot always name DWARF 5's file 0, the unit's own source: then it is the unit's name.
      const char* file = named ? dwarf_decl_file(named) : nullptr;
      if (!named || !same_file(file ? file : dwarf_diename(cu), out.file)) continue;
    }
    if (const char* name = dwarf_diename(named)) out.function = name;
    dwarf_decl_line(named, &out.function_begin);
    out.function_end = last_line(cu, &scopes[i], out.function_begin, dwarf_decl_file(named));
    break;
  }
  free(scopes);  // NOLINT(cppcoreguidelines-no-malloc,cppcoreguidelines-owning-memory): libdw allocated it
}

}  // namespace

SourceLine SourceLines::at(std::uint64_t pc) const {
  SourceLine out;
  if (!has_lines_ || pc == 0) return out;
  if (const auto it = impl_->cache.find(pc); it != impl_->cache.end()) return it->second;
  Dwarf_Addr bias = 0;
  if (Dwarf_Die* cu = unit_at(impl_->module, pc, bias)) {
    // Optimized code has rows of line 0 (code shared by several lines): the nearest row before
    // with a line stands for it.
    Dwarf_Line* line = nullptr;
    for (Dwarf_Addr back = 0; back < 256 && back <= pc - bias && out.line <= 0; ++back) {
      line = dwarf_getsrc_die(cu, pc - bias - back);
      if (line) dwarf_lineno(line, &out.line);
    }
    if (line && out.line > 0) {
      Dwarf_Attribute attribute;
      const char* comp_dir = dwarf_formstring(dwarf_attr(cu, DW_AT_comp_dir, &attribute));
      out.file = absolute(dwarf_linesrc(line, nullptr, nullptr), comp_dir);
    }
    function_range(cu, pc - bias, out);
  }
  if (out.function.empty())
    if (const char* name = dwfl_module_addrname(impl_->module, pc)) out.function = name;
  impl_->cache.emplace(pc, out);
  return out;
}

SourceLine SourceLines::program_line(std::uint64_t pc) const {
  SourceLine out = at(pc);
  if (!out.known() || !system_header(out.file)) return out;
  Dwarf_Addr bias = 0;
  Dwarf_Die* cu = unit_at(impl_->module, pc, bias);
  Dwarf_Files* files = nullptr;
  std::size_t count = 0;
  if (!cu || dwarf_getsrcfiles(cu, &files, &count) != 0) return out;
  Dwarf_Attribute attribute;
  const char* comp_dir = dwarf_formstring(dwarf_attr(cu, DW_AT_comp_dir, &attribute));
  // Innermost scope first: each inlined call names the file and line it was inlined at.
  Dwarf_Die* scopes = nullptr;
  const int n = dwarf_getscopes(cu, pc - bias, &scopes);
  for (int i = 0; i < n; ++i) {
    Dwarf_Word file = 0;
    Dwarf_Word line = 0;
    if (dwarf_tag(&scopes[i]) != DW_TAG_inlined_subroutine ||
        dwarf_formudata(dwarf_attr(&scopes[i], DW_AT_call_file, &attribute), &file) != 0 ||
        dwarf_formudata(dwarf_attr(&scopes[i], DW_AT_call_line, &attribute), &line) != 0 || file >= count)
      continue;
    std::string caller = absolute(dwarf_filesrc(files, file, nullptr, nullptr), comp_dir);
    if (caller.empty() || system_header(caller)) continue;
    out.file = std::move(caller);
    out.line = static_cast<int>(line);
    break;
  }
  free(scopes);  // NOLINT(cppcoreguidelines-no-malloc,cppcoreguidelines-owning-memory): libdw allocated it
  return out;
}

const std::vector<std::string>& SourceLines::files() const {
  if (impl_->files_listed || !has_lines_) return impl_->files;
  impl_->files_listed = true;
  Dwarf_Addr bias = 0;
  for (Dwarf_Die* cu = dwfl_module_nextcu(impl_->module, nullptr, &bias); cu;
       cu = dwfl_module_nextcu(impl_->module, cu, &bias)) {
    Dwarf_Files* files = nullptr;
    std::size_t count = 0;
    if (dwarf_getsrcfiles(cu, &files, &count) != 0) continue;
    Dwarf_Attribute attribute;
    const char* comp_dir = dwarf_formstring(dwarf_attr(cu, DW_AT_comp_dir, &attribute));
    for (std::size_t i = 0; i < count; ++i)
      if (const char* name = dwarf_filesrc(files, i, nullptr, nullptr))
        impl_->files.push_back(absolute(name, comp_dir));
  }
  return impl_->files;
}

std::string SourceLine::describe(std::uint64_t pc) const {
  if (!known())
    return function.empty() ? fmt::format("{:#x}", pc) : fmt::format("{:#x} (in {})", pc, function);
  const std::string name = std::filesystem::path(file).filename().string();
  return function.empty() ? fmt::format("{}:{}", name, line)
                          : fmt::format("{}:{} (in {})", name, line, function);
}

}  // namespace ncp2::debug_info
