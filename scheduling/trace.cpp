#include "scheduling/trace.hpp"

#include <charconv>
#include <cmath>
#include <fstream>
#include <sstream>
#include <string_view>

#include <fmt/format.h>

#include "carnival/file_publish.hpp"
#include "carnival/store_error.hpp"

namespace ncp2::sched {

namespace {

constexpr std::string_view kMagic = "ncp2-bandwidth-trace 1";

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

// The line without its comment and surrounding blanks.
std::string_view content_of(std::string_view line) {
  if (const auto hash = line.find('#'); hash != std::string_view::npos) line = line.substr(0, hash);
  return trim(line);
}

double parse_number(std::string_view text, const std::string& at) {
  double v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size() || !std::isfinite(v))
    throw TraceError(fmt::format("{}: '{}' is not a number", at, text));
  return v;
}

long long parse_integer(std::string_view text, const std::string& at) {
  long long v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size())
    throw TraceError(fmt::format("{}: '{}' is not a whole number", at, text));
  return v;
}

// One "key value" line of the header into `trace`.
void read_header_line(std::string_view line, DemandTrace& trace, const std::string& at) {
  const auto space = line.find_first_of(" \t");
  const std::string_view key = line.substr(0, space);
  const std::string_view value = space == std::string_view::npos ? "" : trim(line.substr(space));
  if (key == "name") {
    trace.name = value;
  } else if (key == "threads") {
    const long long threads = parse_integer(value, at);
    if (threads < 1 || threads > 1024) throw TraceError(fmt::format("{}: threads must be 1..1024", at));
    trace.threads = static_cast<int>(threads);
  } else if (key == "step_us") {
    const long long us = parse_integer(value, at);
    if (us < 1 || us > 3'600'000'000LL)
      throw TraceError(fmt::format("{}: step_us must be 1..3600000000", at));
    trace.step = emu::microseconds(us);
  } else if (key == "endless") {
    if (value != "0" && value != "1") throw TraceError(fmt::format("{}: endless must be 0 or 1", at));
    trace.endless = value == "1";
  } else if (key == "source") {
    trace.source = value;
  } else {
    throw TraceError(
        fmt::format("{}: unknown key '{}' (name, threads, step_us, endless, source, data)", at, key));
  }
}

}  // namespace

Bandwidth DemandTrace::mean_demand() const {
  if (demand.empty()) return Bandwidth{};
  Bandwidth sum;
  for (const Bandwidth d : demand) sum += d;
  return sum / static_cast<double>(demand.size());
}

void check_trace(const DemandTrace& trace, const std::string& where) {
  if (trace.name.empty()) throw TraceError(fmt::format("{}: the trace has no name", where));
  if (trace.threads < 1) throw TraceError(fmt::format("{}: threads must be at least 1", where));
  if (trace.step <= Duration{0}) throw TraceError(fmt::format("{}: no step_us (solo time per line)", where));
  if (trace.demand.empty()) throw TraceError(fmt::format("{}: the trace has no demand lines", where));
  for (const Bandwidth d : trace.demand)
    if (!std::isfinite(d.per_us()) || d.per_us() < 0 || d.per_us() > kMaxDemand)
      throw TraceError(
          fmt::format("{}: a demand must be a number from 0 to {:g} transactions/us", where, kMaxDemand));
}

DemandTrace parse_trace(const std::string& text, const std::string& where) {
  DemandTrace trace;
  trace.step = Duration{0};
  std::istringstream in(text);
  std::string raw;
  int number = 0;
  bool magic_seen = false;
  bool in_data = false;
  while (std::getline(in, raw)) {
    ++number;
    const std::string at = fmt::format("{}:{}", where, number);
    const std::string_view line = content_of(raw);
    if (line.empty()) continue;
    if (!magic_seen) {
      if (line != kMagic)
        throw TraceError(fmt::format("{}: not a bandwidth trace (the first line must be '{}')", at, kMagic));
      magic_seen = true;
    } else if (in_data) {
      const double v = parse_number(line, at);
      if (v < 0) throw TraceError(fmt::format("{}: a demand cannot be negative", at));
      if (v > kMaxDemand)
        throw TraceError(fmt::format("{}: a demand above {:g} transactions/us", at, kMaxDemand));
      trace.demand.emplace_back(v);
    } else if (line == "data") {
      in_data = true;
    } else {
      read_header_line(line, trace, at);
    }
  }
  if (!magic_seen) throw TraceError(fmt::format("{}: empty file, not a bandwidth trace", where));
  if (!in_data) throw TraceError(fmt::format("{}: no 'data' line before the demands", where));
  check_trace(trace, where);
  return trace;
}

DemandTrace read_trace_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw TraceError(fmt::format("{}: cannot open the trace file", path));
  std::ostringstream text;
  text << in.rdbuf();
  return parse_trace(text.str(), path);
}

std::string format_trace(const DemandTrace& trace) {
  std::string out = fmt::format("{}\nname {}\nthreads {}\nstep_us {}\nendless {}\n", kMagic, trace.name,
                                trace.threads, trace.step.count() / 1'000'000, trace.endless ? 1 : 0);
  if (!trace.source.empty()) out += fmt::format("source {}\n", trace.source);
  out += "data\n";
  for (const Bandwidth d : trace.demand) out += fmt::format("{:.6g}\n", d.per_us());
  return out;
}

void write_trace_file(const std::string& path, const DemandTrace& trace) {
  check_trace(trace, path);
  try {
    carnival::write_file_atomically(path, [&](std::ostream& out) { out << format_trace(trace); });
  } catch (const carnival::StoreError& e) {
    throw TraceError(e.what());
  }
}

}  // namespace ncp2::sched
