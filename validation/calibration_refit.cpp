// A kept calibration's measurements fitted again (validation/calibrate_host.hpp: refit_calibration).
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string_view>
#include <utility>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "validation/calibrate_host.hpp"

namespace ncp2::validation {

namespace {

using nlohmann::json;

std::runtime_error not_a_calibration(const std::string& path, const std::string& what) {
  return std::runtime_error(fmt::format("{} is not the JSON of `ncp2 calibrate --json`: {}", path, what));
}

// What `ncp2 calibrate --json` writes of one basic cost; the busy requests need their rounds where
// the fit reads their modes (`busy_rounds`: the costs beside idle nodes, not the loaded ones, whose
// busy requests the load factor does not read: load_factor.hpp's reads_the_load).
MeasuredCost measured_cost(const json& row, const std::string& path, bool busy_rounds) {
  const auto number = [&](const char* key) {
    if (!row.contains(key) || !row[key].is_number())
      throw not_a_calibration(path, fmt::format("a basic cost has no number '{}'", key));
    return row[key].get<double>();
  };
  if (!row.is_object() || !row.contains("operation") || !row["operation"].is_string())
    throw not_a_calibration(path, "a basic cost has no 'operation'");
  MeasuredCost m;
  m.operation = row["operation"].get<std::string>();
  m.median_us = number("median_us");
  m.min_us = number("min_us");
  m.max_us = number("max_us");
  m.p90_us = number("p90_us");
  m.rounds = static_cast<int>(number("rounds"));
  if (row.contains("rounds_us") && row["rounds_us"].is_array())
    for (const json& r : row["rounds_us"])
      if (r.is_number()) m.rounds_us.push_back(r.get<double>());
  if (busy_rounds && m.operation.starts_with("busy-request-") && m.rounds_us.empty())
    throw std::runtime_error(fmt::format(
        "{} has no rounds of the busy requests (written by an ncp2 that did not keep them); the fit needs "
        "them: measure again (ncp2 calibrate --machine real -o FILE.toml --json FILE.json)",
        path));
  return m;
}

std::vector<MeasuredCost> measured_costs(const json& j, const char* key, const std::string& path) {
  std::vector<MeasuredCost> out;
  if (!j.contains(key)) return out;
  if (!j[key].is_array()) throw not_a_calibration(path, fmt::format("'{}' is no list", key));
  for (const json& row : j[key]) out.push_back(measured_cost(row, path, std::string_view(key) == "costs"));
  return out;
}

std::string text_field(const json& j, const char* key, const std::string& path) {
  if (!j.contains(key) || !j[key].is_string()) throw not_a_calibration(path, fmt::format("no '{}'", key));
  return j[key].get<std::string>();
}

}  // namespace

HostCalibration refit_calibration(const std::string& json_path) {
  std::ifstream in(json_path);
  if (!in) throw std::runtime_error(fmt::format("cannot read {}", json_path));
  std::ostringstream text;
  text << in.rdbuf();
  const json j = json::parse(text.str(), nullptr, false);
  if (j.is_discarded()) throw std::runtime_error(fmt::format("{} is not JSON", json_path));
  if (!j.is_object() || !j.contains("costs")) throw not_a_calibration(json_path, "it has no basic costs");
  if (!j.contains("nodes") || !j["nodes"].is_number_integer() || j["nodes"].get<int>() < 2)
    throw not_a_calibration(json_path, "no node count of 2 or more");
  const int nodes = j["nodes"].get<int>();
  std::vector<MeasuredCost> measured = measured_costs(j, "costs", json_path);
  if (measured.empty()) throw std::runtime_error(fmt::format("{} has no basic cost to fit", json_path));
  std::vector<MeasuredCost> loaded = measured_costs(j, "loaded_costs", json_path);
  HostCalibration h;
  h.calibration = fit_calibration(std::move(measured), nodes, text_field(j, "host", json_path),
                                  text_field(j, "date", json_path), std::move(loaded));
  h.command_line = fmt::format("ncp2 calibrate --refit {} (the measurements of: {})", json_path,
                               text_field(j, "command", json_path));
  h.toml = calibration_toml(h.calibration, h.command_line);
  return h;
}

}  // namespace ncp2::validation
