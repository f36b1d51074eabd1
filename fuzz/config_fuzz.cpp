// Fuzz target: the configuration reader (TOML through toml++, the key table, the checks) as
// `ncp2 --config FILE` and `--set KEY=VALUE` use it. Bad input must end in emu::ConfigError (a
// clear message), never a crash or another exception; a configuration that was accepted must
// print as TOML that reads back to the same configuration (dsm::to_toml's promise).
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "dsm/config.hpp"
#include "emulator/config_error.hpp"
#include "fuzz/fuzz_check.hpp"

namespace {

using ncp2::dsm::SystemConfig;

void round_trip(const SystemConfig& config) {
  const std::string toml = ncp2::dsm::to_toml(config);
  SystemConfig again = ncp2::dsm::default_config(config.machine.kind);
  ncp2::dsm::apply_toml_text(again, toml, "printed");
  ncp2::fuzz::check(ncp2::dsm::to_toml(again) == toml, "the printed configuration reads back differently");
}

// The first lines as --set overrides over the defaults (a few: each costs a "did you mean" search).
void overrides(std::string_view text) {
  SystemConfig config = ncp2::dsm::default_config(ncp2::emu::MachineKind::TreadMarks);
  for (int lines = 0; lines < 4 && !text.empty(); ++lines) {
    const auto end = text.find('\n');
    const std::string_view line = text.substr(0, end);
    text = end == std::string_view::npos ? std::string_view{} : text.substr(end + 1);
    try {
      ncp2::dsm::apply_override(config, line);
    } catch (const ncp2::emu::ConfigError&) {
    }
  }
  try {
    ncp2::dsm::validate(config);
  } catch (const ncp2::emu::ConfigError&) {
    return;
  }
  round_trip(config);
}

}  // namespace

// NOLINTNEXTLINE(readability-identifier-naming): libFuzzer's entry point
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  SystemConfig config = ncp2::dsm::default_config(ncp2::emu::MachineKind::Ncp2);
  try {
    ncp2::dsm::apply_toml_text(config, text, "fuzz.toml");
    ncp2::dsm::validate(config);
    round_trip(config);
  } catch (const ncp2::emu::ConfigError&) {
  }
  overrides(text);
  return 0;
}
