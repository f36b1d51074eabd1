#include "cli/option_checks.hpp"

#include <charconv>
#include <cmath>
// GCC 12 warns -Wmaybe-uninitialized inside libstdc++'s <regex> in the sanitizer builds at -O2 (a
// false positive in std::function's copy within the regex compiler): off for that header only.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include <regex>
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

#include <fmt/format.h>

#include "emulator/units.hpp"

namespace ncp2::cli {

CLI::Validator whole_number(std::uint64_t min, std::uint64_t max) {
  return {[min, max](std::string& text) -> std::string {
            std::uint64_t value = 0;
            const char* end = text.data() + text.size();
            const auto [ptr, ec] = std::from_chars(text.data(), end, value);
            if (text.empty() || ec == std::errc::invalid_argument || ptr != end)
              return fmt::format("'{}' is not a whole number (expected {} to {})", text, min, max);
            if (ec == std::errc::result_out_of_range || value < min || value > max)
              return fmt::format("{} is out of range (expected {} to {})", text, min, max);
            return {};
          },
          fmt::format("{}..{}", min, max)};
}

CLI::Validator real_number(double min, double max) {
  return {[min, max](std::string& text) -> std::string {
            double value = 0;
            const char* end = text.data() + text.size();
            const auto [ptr, ec] = std::from_chars(text.data(), end, value);
            if (text.empty() || ec != std::errc{} || ptr != end || !std::isfinite(value))
              return fmt::format("'{}' is not a number (expected {} to {})", text, min, max);
            if (value < min || value > max)
              return fmt::format("{} is out of range (expected {} to {})", text, min, max);
            return {};
          },
          fmt::format("{}..{}", min, max)};
}

CLI::Validator positive_duration() {
  return {[](std::string& text) -> std::string {
            try {
              if (emu::parse_duration(text) > emu::Duration::zero()) return {};
              return fmt::format("{} is not a duration above zero", text);
            } catch (const std::exception& e) {
              return fmt::format("'{}' is not a duration ({}; e.g. 10s, 500ms)", text, e.what());
            }
          },
          "DURATION"};
}

namespace {

struct Rewrite {
  std::regex pattern;
  std::string replacement;  // std::regex_replace format: $1, $2...
};

// CLI11 2.1's phrases, in the order tried; the first that matches the whole message wins.
const std::vector<Rewrite>& rewrites() {
  static const std::vector<Rewrite> table = {
      {std::regex(R"(Could not convert: (\S+) = (.*))"), "$1: '$2' is not a value it takes"},
      {std::regex(R"(The value (.*) is not an allowed value for (\S+))"), "$2: '$1' is not a value it takes"},
      {std::regex(R"((\S+): too many inputs for a flag)"), "$1 is a flag: it takes no value"},
      {std::regex(R"((\S+): Should be true/false or a number)"), "$1 takes true or false"},
      {std::regex(R"((\S+): At Most (\d+) required but received (\d+))"),
       "$1 takes at most $2 value(s), got $3 (quote a value that has spaces)"},
      {std::regex(R"((\S+): At least (\d+) required but received (\d+))"),
       "$1 takes at least $2 value(s), got $3"},
      {std::regex(R"(Expected exactly (\d+) arguments to (\S+), got (\d+))"), "$2 takes $1 value(s), got $3"},
      {std::regex(R"(Expected at least (\d+) arguments to (\S+), got (\d+))"),
       "$2 takes at least $1 value(s), got $3"},
      {std::regex(R"((\S+): (\d+) required (\S+) missing)"), "$1 needs a value ($3)"},
      {std::regex(R"(A subcommand is required)"), "no command given (e.g. ncp2 run counter)"},
      {std::regex(R"((\S+) is required)"), "$1 is missing"},
      {std::regex(R"(The following arguments? (?:was|were) not expected: (.*))"),
       "unexpected argument(s): $1 (a program's arguments go after --)"},
      {std::regex(R"((\S+) requires (\S+))"), "$1 needs $2"},
      {std::regex(R"((\S+) excludes (\S+))"), "$1 cannot be used with $2"},
      {std::regex(R"((\S+): (\S+) not in \{(.*)\})"), "$1: '$2' is not one of: $3"},
      {std::regex(R"((\S+): Value (.*) not in range (.*) to (.*))"),
       "$1: $2 is out of range (expected $3 to $4)"},
  };
  return table;
}

}  // namespace

std::string explain_parse_error(const CLI::ParseError& error, const std::string& command) {
  std::string message = error.what();
  for (const Rewrite& r : rewrites()) {
    if (!std::regex_match(message, r.pattern)) continue;
    message = std::regex_replace(message, r.pattern, r.replacement, std::regex_constants::format_first_only);
    break;
  }
  // CLI11 joins lists with commas and no space.
  message = std::regex_replace(message, std::regex(R"(,(\S))"), ", $1");
  const std::string help = command.empty() ? "ncp2 --help" : fmt::format("ncp2 {} --help", command);
  return fmt::format("{}; see {}", message, help);
}

}  // namespace ncp2::cli
