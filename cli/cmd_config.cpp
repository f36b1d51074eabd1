// `ncp2 config`: prints the effective configuration, or the list of keys.
#include <cstdio>
#include <memory>

#include <fmt/format.h>

#include "cli/commands.hpp"
#include "cli/machine_options.hpp"
#include "dsm/config.hpp"

namespace ncp2::cli {

Subcommand add_config_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("config", "Print the effective machine configuration (TOML)");
  auto options = std::make_shared<MachineOptions>();
  auto keys = std::make_shared<bool>(false);
  auto markdown = std::make_shared<bool>(false);
  add_machine_options(*cmd, *options);
  cmd->add_flag("--keys", *keys, "list every key with its type, default and meaning");
  cmd->add_flag("--markdown", *markdown, "with --keys: a Markdown table (used by docs/configuration.md)");
  return {cmd, [options, keys, markdown] {
            if (*keys) {
              if (*markdown) {
                fmt::print("| key | type | range | default (ncp2) | meaning | source of the default |\n");
                fmt::print("|---|---|---|---|---|---|\n");
                for (const auto& k : dsm::config_keys())
                  fmt::print("| `{}` | {} | {} | `{}` | {} | {} |\n", k.key, k.type, k.range, k.ncp2_default,
                             k.description, k.source);
              } else {
                for (const auto& k : dsm::config_keys())
                  fmt::print("{:<36} {:<12} {:<14} {}{}\n", k.key, k.type, k.ncp2_default, k.description,
                             k.range.empty() ? std::string() : fmt::format(" (range {})", k.range));
              }
              return kExitOk;
            }
            const dsm::SystemConfig config = load_machine_config(*options);
            fmt::print("# effective configuration (ncp2 config)\n{}", dsm::to_toml(config));
            return kExitOk;
          }};
}

}  // namespace ncp2::cli
