#include "carnival/trace_export.hpp"

#include "carnival/file_publish.hpp"

#include <unistd.h>
#include <algorithm>
#include <array>
#include <cerrno>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <ostream>
#include <set>
#include <stdexcept>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace ncp2::carnival {

std::string trace_microseconds(std::int64_t ps) {
  const bool negative = ps < 0;
  const std::uint64_t a =
      negative ? static_cast<std::uint64_t>(-(ps + 1)) + 1 : static_cast<std::uint64_t>(ps);
  return fmt::format("{}{}.{:06}", negative ? "-" : "", a / 1'000'000, a % 1'000'000);
}

namespace {

// Text from the file that is not UTF-8 is written replaced (U+FFFD), not refused.
std::string dump(const nlohmann::json& j) {
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}
std::string quoted(const std::string& s) { return dump(nlohmann::json(s)); }

class EventWriter {
 public:
  explicit EventWriter(std::ostream& out) : out_(out) { out_ << "{\"traceEvents\":[\n"; }

  void event(const std::string& body) {
    if (!first_) out_ << ",\n";
    first_ = false;
    out_ << '{' << body << '}';
  }
  void end(const std::string& other_data) {
    out_ << "\n],\"displayTimeUnit\":\"ns\",\"otherData\":" << other_data << "}\n";
  }

 private:
  std::ostream& out_;
  bool first_ = true;
};

std::string scope_label(const std::map<std::uint32_t, const Scope*>& scopes, std::int64_t id) {
  if (id < 0) return "";
  auto it = scopes.find(static_cast<std::uint32_t>(id));
  if (it == scopes.end()) return fmt::format("scope {}", id);
  const Scope& s = *it->second;
  if (s.file.empty()) return s.name;
  return fmt::format("{} ({}:{}-{})", s.name, s.file, s.begin_line, s.end_line);
}

// One trace written event by event: the processes and threads, the timeline's slices, the waits
// with their request/reply flows.
using Slices = std::vector<std::pair<std::int64_t, std::int64_t>>;  // (start, end) by start

class TraceWriter {
 public:
  TraceWriter(const RunData& d, std::ostream& out) : d_(d), w_(out) {
    for (const auto& s : d.scopes) scopes_.emplace(s.id, &s);
  }
  TraceCounts write() {
    write_metadata();
    write_segments();
    write_waits();
    const nlohmann::json other = {{"workload", d_.run.workload},
                                  {"machine", d_.run.machine},
                                  {"nodes", d_.run.nodes},
                                  {"status", d_.run.status},
                                  {"virtual_time_ps", d_.run.virtual_time_ps},
                                  {"waits_dropped", d_.waits_dropped},
                                  {"timeline_dropped", d_.timeline_dropped}};
    w_.end(dump(other));
    return counts_;
  }

 private:
  std::string label(std::int64_t scope) const { return scope_label(scopes_, scope); }
  void write_metadata();
  void write_segments();
  void write_waits();
  void write_flows(const WaitRow& x, const std::map<std::pair<int, bool>, Slices>& activity);

  const RunData& d_;
  EventWriter w_;
  TraceCounts counts_;
  std::map<std::uint32_t, const Scope*> scopes_;
  std::uint64_t flow_id_ = 0;
};

void TraceWriter::write_metadata() {
  std::set<int> nodes;
  for (int n = 0; n < d_.run.nodes; ++n) nodes.insert(n);
  for (const auto& n : d_.nodes) nodes.insert(n.node);
  for (const auto& g : d_.timeline) nodes.insert(g.node);
  for (const auto& x : d_.waits) {
    nodes.insert(x.node);
    if (x.remote_node >= 0) nodes.insert(x.remote_node);
  }
  for (int n : nodes) {
    const int pid = trace_pid(n);
    w_.event(fmt::format(R"("ph":"M","pid":{},"name":"process_name","args":{{"name":"node {}"}})", pid, n));
    w_.event(
        fmt::format(R"("ph":"M","pid":{},"name":"process_sort_index","args":{{"sort_index":{}}})", pid, n));
    for (bool cp : {false, true}) {
      const int tid = trace_tid(n, cp);
      w_.event(fmt::format(R"("ph":"M","pid":{},"tid":{},"name":"thread_name","args":{{"name":"{}"}})", pid,
                           tid, cp ? "CP" : "PP"));
      w_.event(
          fmt::format(R"("ph":"M","pid":{},"tid":{},"name":"thread_sort_index","args":{{"sort_index":{}}})",
                      pid, tid, cp ? 1 : 0));
    }
    counts_.metadata += 6;
  }
  counts_.processes = nodes.size();
}

void TraceWriter::write_segments() {
  // Slices on one thread must nest: a segment that crosses the start or the end of a wait on its
  // thread is cut there (the wait's slice then encloses the pieces inside it).
  std::map<std::pair<int, bool>, std::vector<std::int64_t>> boundaries;
  for (const auto& x : d_.waits) {
    auto& b = boundaries[{x.node, x.kind == "CPWait"}];
    b.push_back(x.start_ps);
    b.push_back(x.start_ps + x.duration_ps);
  }
  for (auto& [key, b] : boundaries) {
    std::sort(b.begin(), b.end());
    b.erase(std::unique(b.begin(), b.end()), b.end());
  }
  for (const auto& g : d_.timeline) {
    const std::string head =
        fmt::format(R"("ph":"X","pid":{},"tid":{},"name":"{}","cat":"{}")", trace_pid(g.node),
                    trace_tid(g.node, g.cp), to_string(g.category), g.cp ? "CP" : "PP");
    const std::string args =
        fmt::format(R"("args":{{"operation":{},"scope":{}}})", quoted(g.operation), quoted(label(g.scope)));
    std::int64_t from = g.start_ps;
    auto emit = [&](std::int64_t to) {
      w_.event(fmt::format(R"({},"ts":{},"dur":{},{})", head, trace_microseconds(from),
                           trace_microseconds(to - from), args));
      ++counts_.segments;
      from = to;
    };
    if (auto it = boundaries.find({g.node, g.cp}); it != boundaries.end()) {
      const auto& b = it->second;
      for (auto p = std::upper_bound(b.begin(), b.end(), g.start_ps); p != b.end() && *p < g.end_ps; ++p)
        emit(*p);
    }
    emit(g.end_ps);
  }
}

void TraceWriter::write_waits() {
  // Each resource's segments by start, to bind the reply's departure to the remote's activity.
  std::map<std::pair<int, bool>, Slices> activity;
  for (const auto& g : d_.timeline) activity[{g.node, g.cp}].emplace_back(g.start_ps, g.end_ps);
  for (auto& [key, list] : activity) std::sort(list.begin(), list.end());
  for (const auto& x : d_.waits) {
    const bool cp = x.kind == "CPWait";
    std::string args =
        fmt::format(R"("id":{},"kind":{},"operation":{},"scope":{},"duration_ps":{})", x.id, quoted(x.kind),
                    quoted(x.operation), quoted(label(x.scope)), x.duration_ps);
    for (std::size_t i = 0; i < kWaitParts; ++i)
      args += fmt::format(R"(,"{}_ps":{})", kWaitPartTable[i].name, x.parts[i]);
    if (x.cause_node >= 0) args += fmt::format(R"(,"cause_node":{})", x.cause_node);
    if (x.cause_scope >= 0) args += fmt::format(R"(,"cause_scope":{})", quoted(label(x.cause_scope)));
    if (x.remote_node >= 0) args += fmt::format(R"(,"remote_node":{})", x.remote_node);
    args += fmt::format(R"(,"object":{})", x.object);
    w_.event(
        fmt::format(R"("ph":"X","pid":{},"tid":{},"name":{},"cat":"wait","ts":{},"dur":{},"args":{{{}}})",
                    trace_pid(x.node), trace_tid(x.node, cp), quoted(x.operation + " wait"),
                    trace_microseconds(x.start_ps), trace_microseconds(x.duration_ps), args));
    ++counts_.waits;
    if (x.remote_node >= 0 && x.remote_node != x.node) write_flows(x, activity);
  }
}

// A flow starts from the slice enclosing its time stamp: if the estimated departure falls in a
// gap of the remote's timeline, it moves back into the remote's last activity since the wait
// began (and the arrival, if later, to that activity's start, so that both arrows meet there).
void bind_to_remote(const Slices& list, std::int64_t start, std::int64_t& arrival, std::int64_t& departure) {
  auto after = std::upper_bound(list.begin(), list.end(), std::pair{departure, INT64_MAX});
  if (after == list.begin()) return;
  const auto& last = *std::prev(after);
  if (last.second > departure || last.second <= start || last.second <= last.first) return;
  departure = last.second - 1;
  arrival = std::min(arrival, std::max(start, last.first));
}

void TraceWriter::write_flows(const WaitRow& x, const std::map<std::pair<int, bool>, Slices>& activity) {
  const bool remote_on_cp = d_.run.machine != "treadmarks";  // who receives a request: the CP, or the PP
  const int pid = trace_pid(x.node), tid = trace_tid(x.node, x.kind == "CPWait");
  // Where the request reaches the remote node and where the reply leaves it, from the parts
  // (each local part holds both directions): half of the local queueing, execution and
  // transmission before the arrival, the other half plus PPLWait after the departure.
  using P = WaitPart;
  auto part = [&](P p) { return x.parts[static_cast<std::size_t>(p)]; };
  const std::int64_t local = part(P::CPLWait) + part(P::CPLComp) + part(P::CPComm);
  const std::int64_t end = x.start_ps + x.duration_ps;
  std::int64_t arrival = std::min(end, x.start_ps + local / 2);
  std::int64_t departure = std::max(arrival, end - part(P::PPLWait) - (local - local / 2));
  if (auto it = activity.find({x.remote_node, remote_on_cp}); it != activity.end())
    bind_to_remote(it->second, x.start_ps, arrival, departure);
  const int rpid = trace_pid(x.remote_node), rtid = trace_tid(x.remote_node, remote_on_cp);
  const std::int64_t back = std::max(x.start_ps, end - 1);  // inside the wait's slice
  const std::uint64_t request = flow_id_++, reply = flow_id_++;
  w_.event(fmt::format(R"("ph":"s","id":{},"name":"request","cat":"flow","pid":{},"tid":{},"ts":{})", request,
                       pid, tid, trace_microseconds(x.start_ps)));
  // The request binds to the remote's next slice from its arrival (the command that serves it).
  w_.event(fmt::format(R"("ph":"f","id":{},"name":"request","cat":"flow","pid":{},"tid":{},"ts":{})", request,
                       rpid, rtid, trace_microseconds(arrival)));
  w_.event(fmt::format(R"("ph":"s","id":{},"name":"reply","cat":"flow","pid":{},"tid":{},"ts":{})", reply,
                       rpid, rtid, trace_microseconds(departure)));
  w_.event(fmt::format(R"("ph":"f","bp":"e","id":{},"name":"reply","cat":"flow","pid":{},"tid":{},"ts":{})",
                       reply, pid, tid, trace_microseconds(back)));
  counts_.flows += 4;
}

}  // namespace

TraceCounts write_trace(const RunData& d, std::ostream& out) { return TraceWriter(d, out).write(); }

TraceCounts export_trace(const RunData& data, const std::string& path) {
  TraceCounts counts;
  write_file_atomically(path, [&](std::ostream& out) { counts = write_trace(data, out); });
  return counts;
}

}  // namespace ncp2::carnival
