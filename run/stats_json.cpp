#include "run/stats_json.hpp"

#include "carnival/file_publish.hpp"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <stdexcept>

#include <fmt/format.h>

#include "dsm/types.hpp"
#include "lrc/counters.hpp"
#include "run/workload_names.hpp"
#include "workloads/registry.hpp"

namespace ncp2::run {

using nlohmann::json;

json to_json(const ParamValue& value) {
  return std::visit([](const auto& x) { return json(x); }, value);
}

json params_json(const Params& params) {
  json out = json::object();
  for (const auto& [name, value] : params.values()) out[name] = to_json(value);
  return out;
}

json workload_json(const Workload& w) {
  json parameters = json::array();
  for (const auto& p : w.parameters) {
    json j = {{"name", p.name},
              {"type", std::string(to_string(p.type))},
              {"default", to_json(p.default_value)},
              {"description", p.description}};
    if (p.type == ParamType::Int) {
      if (p.min) j["min"] = static_cast<std::int64_t>(*p.min);
      if (p.max) j["max"] = static_cast<std::int64_t>(*p.max);
    } else {
      if (p.min) j["min"] = *p.min;
      if (p.max) j["max"] = *p.max;
    }
    if (!p.choices.empty()) j["choices"] = p.choices;
    parameters.push_back(std::move(j));
  }
  json presets = json::object();
  for (const auto& [preset, values] : w.presets) {
    json v = json::object();
    for (const auto& [name, value] : values) v[name] = to_json(value);
    presets[preset] = std::move(v);
  }
  return {{"name", w.name},
          {"description", w.description},
          {"parameters", std::move(parameters)},
          {"presets", std::move(presets)}};
}

json workloads_json() {
  json out = json::array();
  for (const auto& w : all_workloads()) out.push_back(workload_json(w));
  return out;
}

namespace {

json purposes_json(const std::vector<std::uint64_t>& by_purpose) {
  json out = json::object();
  for (std::uint16_t p = dsm::kPageRequest; p < dsm::kPurposeEnd; ++p)
    out[std::string(dsm::purpose_name(p))] = p < by_purpose.size() ? by_purpose[p] : 0;
  return out;
}

// The network's counts and every protocol count of the core (lrc::kCounterTable's names).
json counters_json(const dsm::NodeStats& s, std::uint64_t interrupts) {
  json out = {{"messages", s.messages}, {"bytes", s.bytes}, {"interrupts", interrupts}};
  for (const lrc::CounterInfo& c : lrc::kCounterTable) out[std::string(c.name)] = s.*c.member;
  return out;
}

}  // namespace

json stats_json(const RunOutcome& o) {
  const dsm::NodeStats totals = o.totals();
  json per_node = json::array();
  for (std::size_t i = 0; i < o.node_stats.size(); ++i) {
    json n = {{"node", i}};
    n.update(counters_json(o.node_stats[i], i < o.interrupts.size() ? o.interrupts[i] : 0));
    n["exit_time_ps"] = i < o.exit_times.size() ? emu::to_ps(o.exit_times[i]) : 0;
    n["messages_by_purpose"] = purposes_json(o.node_stats[i].messages_by_purpose);
    per_node.push_back(std::move(n));
  }
  return {{"workload", o.workload},
          {"parameters", params_json(o.params)},
          {"seed", o.seed},
          {"machine", std::string(emu::to_string(o.machine))},
          {"nodes", o.nodes},
          {"status", std::string(to_string(o.status))},
          {"diagnosis", o.diagnosis},
          {"verified", o.verified},
          {"verification", o.verification},
          {"virtual_time_ps", emu::to_ps(o.timed_end)},
          {"total_virtual_time_ps", emu::to_ps(o.end_time)},
          {"events", o.events},
          {"network", {{"messages", o.network_messages}, {"bytes", o.network_bytes}}},
          {"totals", counters_json(totals, o.total_interrupts())},
          {"messages_by_purpose", purposes_json(totals.messages_by_purpose)},
          {"per_node", std::move(per_node)}};
}

void write_file_atomically(const std::string& path, const std::string& text) {
  carnival::write_file_atomically(path, [&text](std::ostream& out) { out << text; });
}

}  // namespace ncp2::run
