// `ncp2 workloads`: the workloads `ncp2 run` knows, their parameters and presets (text or JSON).
#include <cstdio>
#include <memory>

#include <fmt/format.h>

#include "cli/commands.hpp"
#include "cli/machine_options.hpp"
#include "run/stats_json.hpp"
#include "workloads/registry.hpp"

namespace ncp2::cli {

namespace {

std::string bounds_of(const workloads::ParamSpec& p) {
  auto num = [&](double v) {
    return p.type == workloads::ParamType::Int ? fmt::format("{}", static_cast<std::int64_t>(v))
                                               : fmt::format("{}", v);
  };
  if (!p.choices.empty()) {
    std::string out;
    for (const auto& c : p.choices) out += (out.empty() ? "" : "|") + c;
    return out;
  }
  if (p.min && p.max) return fmt::format("{}..{}", num(*p.min), num(*p.max));
  if (p.min) return fmt::format(">= {}", num(*p.min));
  if (p.max) return fmt::format("<= {}", num(*p.max));
  return "";
}

void print_text() {
  bool first = true;
  for (const auto& w : workloads::all_workloads()) {
    if (!first) fmt::print("\n");
    first = false;
    fmt::print("{}\n  {}\n", w.name, w.description);
    fmt::print("  {:<12} {:<5} {:>8}  {:<14} {}\n", "parameter", "type", "default", "bounds", "description");
    for (const auto& p : w.parameters)
      fmt::print("  {:<12} {:<5} {:>8}  {:<14} {}\n", p.name, workloads::to_string(p.type),
                 workloads::format_value(p.default_value), bounds_of(p), p.description);
    for (const auto& [preset, values] : w.presets) {
      std::string list;
      for (const auto& [name, value] : values)
        list += fmt::format("{}{}={}", list.empty() ? "" : " ", name, workloads::format_value(value));
      fmt::print("  preset {:<6} {}\n", preset, list);
    }
  }
}

}  // namespace

Subcommand add_workloads_command(CLI::App& app) {
  auto* cmd =
      app.add_subcommand("workloads", "List the workloads `ncp2 run` knows: parameters, defaults, presets");
  auto json = std::make_shared<bool>(false);
  cmd->add_flag("--json", *json, "print a JSON list of {name, description, parameters, presets}");
  return {cmd, [json] {
            if (*json)
              fmt::print("{}\n", run::workloads_json().dump(2));
            else
              print_text();
            return kExitOk;
          }};
}

}  // namespace ncp2::cli
