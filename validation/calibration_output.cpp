// The preset and the record a calibration writes (validation/calibrate.hpp): the TOML that
// `ncp2 run --config` reads, its keys marked with what was measured, and the JSON for scripts.
#include <algorithm>
#include <cstddef>
#include <map>
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "validation/calibrate.hpp"
#include "validation/load_factor.hpp"

namespace ncp2::validation {

namespace {

std::string value_text(const FitParameter& p, double v) {
  return p.per_byte ? fmt::format("{:.4g} ns/B", v) : fmt::format("{:.4g} us", v);
}

// Appends `comment` to the line of `key` (section.name) in a TOML text written by dsm::to_toml.
void annotate(std::string& toml, const std::string& key, const std::string& comment) {
  const std::size_t dot = key.rfind('.');
  const std::string section = "[" + key.substr(0, dot) + "]\n";
  const std::size_t in = toml.find(section);
  if (in == std::string::npos) return;
  const std::size_t line = toml.find("\n" + key.substr(dot + 1) + " = ", in + section.size() - 1);
  if (line == std::string::npos) return;
  const std::size_t end = toml.find('\n', line + 1);
  toml.insert(end == std::string::npos ? toml.size() : end, "  # " + comment);
}

// The preset's header: how it was made, each measured cost beside what the preset makes of it.
std::string toml_header(const Calibration& c, const std::string& command_line) {
  std::string head = fmt::format(
      "# Calibrated by `{}` on host {}, {} (docs/validation.md): a real node as the treadmarks\n"
      "# machine (its program and its protocol server share a core), its software and network costs\n"
      "# and the server's wait for a computing program's core fitted together (validation/fit.hpp) to\n"
      "# the basic operation costs measured on {} real processes (median of the rounds; their range in\n"
      "# parentheses):\n",
      command_line, c.host, c.date, c.nodes);
  for (const MeasuredCost& m : c.measured) {
    const auto it = c.fit.reproduced.find(m.operation);
    head += fmt::format("#   {:<28} {:>10.1f} us ({:.1f} .. {:.1f}, {} rounds)", m.operation, m.median_us,
                        m.min_us, m.max_us, m.rounds);
    if (it != c.fit.reproduced.end())
      head += fmt::format("  this preset: {:.1f} us ({:+.1f} %{})", it->second,
                          100 * (it->second / fitted_target(c, m) - 1),
                          fitted_to_slow_mode(c, m) ? " of the slow mode" : "");
    head += "\n";
  }
  head += "# " + busy_modes_text(c.busy_modes) + "\n";
  if (!c.loaded.empty()) {
    head += fmt::format(
        "# The same beside nodes that load the host (validation/load_factor.hpp); the software costs below\n"
        "# carry the factor read off them, x{:.3g}:\n",
        c.load.factor);
    for (const MeasuredCost& m : c.loaded) {
      head += fmt::format("#   {:<28} {:>10.1f} us ({:.1f} .. {:.1f}, {} rounds)", m.operation, m.median_us,
                          m.min_us, m.max_us, m.rounds);
      if (const auto it = c.load.reproduced.find(m.operation); it != c.load.reproduced.end())
        head += fmt::format("  this preset: {:.1f} us ({:+.1f} %)", it->second,
                            100 * (it->second / m.median_us - 1));
      head += "\n";
    }
  }
  head +=
      "# Keys marked MEASURED were fitted; the range is each one fitted to the rounds' minima and maxima.\n"
      "# Every other key is the treadmarks machine's default.\n";
  return head;
}

// The fitted keys of `toml`, each marked with what it was fitted to.
void annotate_fitted_keys(std::string& toml, const Calibration& c) {
  for (std::size_t j = 0; j < c.parameters.size(); ++j) {
    const FitParameter& p = c.parameters[j];
    std::string comment =
        fmt::format("MEASURED ({}) on {}, {}: {} (range {} .. {})", p.name, c.host, c.date.substr(0, 10),
                    value_text(p, c.fit.values[j]), value_text(p, std::min(c.low[j], c.high[j])),
                    value_text(p, std::max(c.low[j], c.high[j])));
    if (!c.loaded.empty() && scaled_by_load(p))
      comment += fmt::format("  # then x{:.6g} for the host's load on {} nodes (the loaded basic costs)",
                             c.load.factor, c.nodes);
    for (const std::string& key : p.keys) annotate(toml, key, comment);
  }
}

}  // namespace

std::string calibration_toml(const Calibration& c, const std::string& command_line) {
  std::string toml = dsm::to_toml(c.fit.config);
  annotate_fitted_keys(toml, c);
  annotate(toml, "pp.busy_handler_quiet_after",
           fmt::format("MEASURED on {}, {}: where the busy-request costs change with the time since the "
                       "server last ran (0: they do not)",
                       c.host, c.date.substr(0, 10)));
  annotate(toml, "dsm.close_per_page",
           fmt::format("MEASURED on {}, {}: (barrier-after-520-pages - barrier-after-8-pages) / 512 pages, "
                       "less dsm.per_write_notice (0: not measured)",
                       c.host, c.date.substr(0, 10)));
  for (const char* key :
       {"pp.send_overhead", "pp.receive_overhead", "pp.interrupt_overhead", "network.link_latency"})
    annotate(toml, key,
             fmt::format("then {:.0f} % of the three message costs moved into the cables' latency "
                         "(diff-miss-crossed: two nodes asking each other at once)",
                         100 * c.latency_share));
  annotate(toml, "pp.busy_handler_tick",
           fmt::format(
               "MEASURED on {}, {}: the busy requests' slow mode, spread evenly up to a tick (0: one mode)",
               c.host, c.date.substr(0, 10)));
  annotate(toml, "pp.separate_server",
           "a real node: its agent is a process beside the program, so its service is profiled as what "
           "the program was doing, as a real run records it");
  annotate(toml, "pp.busy_handler_prompt_share",
           fmt::format("MEASURED on {}, {}: the busy requests' short mode (0: one mode), of the spacings "
                       "from pp.busy_handler_prompt_after on (of all the spacings: {:.6g})",
                       c.host, c.date.substr(0, 10), c.busy_modes.prompt_share));
  annotate(toml, "pp.busy_handler_prompt_after",
           fmt::format("MEASURED on {}, {}: the shorter busy-request spacings had no prompt round (0: the "
                       "shortest had some)",
                       c.host, c.date.substr(0, 10)));
  return toml_header(c, command_line) + toml;
}

std::string calibration_json(const Calibration& c, const std::string& command_line) {
  nlohmann::json costs = nlohmann::json::array();
  for (const MeasuredCost& m : c.measured) {
    nlohmann::json row{{"operation", m.operation}, {"median_us", m.median_us}, {"min_us", m.min_us},
                       {"max_us", m.max_us},       {"p90_us", m.p90_us},       {"rounds", m.rounds},
                       {"rounds_us", m.rounds_us}};
    const auto it = c.fit.reproduced.find(m.operation);
    row["preset_us"] = it == c.fit.reproduced.end() ? nlohmann::json(nullptr) : nlohmann::json(it->second);
    row["fitted_to_us"] = fitted_target(c, m);
    row["fitted_to_slow_mode"] = fitted_to_slow_mode(c, m);
    row["error"] = it == c.fit.reproduced.end() ? nlohmann::json(nullptr)
                                                : nlohmann::json(it->second / fitted_target(c, m) - 1);
    costs.push_back(std::move(row));
  }
  nlohmann::json fitted = nlohmann::json::array();
  for (std::size_t j = 0; j < c.parameters.size(); ++j)
    fitted.push_back({{"name", c.parameters[j].name},
                      {"value", c.fit.values[j]},
                      {"unit", c.parameters[j].per_byte ? "ns/B" : "us"},
                      {"keys", c.parameters[j].keys}});
  nlohmann::json loaded = nlohmann::json::array();
  for (const MeasuredCost& m : c.loaded) {
    const auto it = c.load.reproduced.find(m.operation);
    const bool made = it != c.load.reproduced.end();
    loaded.push_back(
        {{"operation", m.operation},
         {"median_us", m.median_us},
         {"min_us", m.min_us},
         {"max_us", m.max_us},
         {"p90_us", m.p90_us},
         {"rounds", m.rounds},
         {"read", reads_the_load(m.operation) && made},
         {"preset_us", made ? nlohmann::json(it->second) : nlohmann::json(nullptr)},
         {"error", made ? nlohmann::json(it->second / m.median_us - 1) : nlohmann::json(nullptr)}});
  }
  const nlohmann::json j{{"command", command_line},
                         {"host", c.host},
                         {"date", c.date},
                         {"nodes", c.nodes},
                         {"costs", costs},
                         {"fitted", fitted},
                         {"busy_quiet_after_us", c.quiet_after_us},
                         {"close_per_page_us", c.close_per_page_us},
                         {"busy_tick_us", c.busy_tick_us},
                         {"busy_prompt_after_us", c.prompt.after_us},
                         {"busy_prompt_share", c.prompt.share},
                         {"latency_share", c.latency_share},
                         {"loaded_costs", loaded},
                         {"load_factor", c.load.factor},
                         {"load_mean_log_error", c.load.mean_log_error},
                         {"busy_modes",
                          {{"rounds", c.busy_modes.rounds},
                           {"prompt_share", c.busy_modes.prompt_share},
                           {"prompt_median_us", c.busy_modes.prompt_median_us},
                           {"slow_median_us", c.busy_modes.slow_median_us},
                           {"slow_min_us", c.busy_modes.slow_min_us},
                           {"slow_max_us", c.busy_modes.slow_max_us}}},
                         {"worst_error", c.fit.worst_error}};
  return j.dump(2) + "\n";
}

}  // namespace ncp2::validation
