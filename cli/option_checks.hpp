#pragma once
// Numeric command-line options checked in the project's words (CLI11's own conversions accept
// "-1" for an unsigned option and wrap it around), and CLI11's parse errors rewritten so that a
// user reads what is wrong, the value, and what to do instead of a library's phrase.
#include <cstdint>
#include <string>

#include <CLI/CLI.hpp>

namespace ncp2::cli {

// The most rows an option may ask the database to keep (a billion: far beyond any host's memory
// for one run, and far below where counts wrap).
inline constexpr std::uint64_t kMaxStoredRows = 1'000'000'000;

// A whole number from `min` to `max` (decimal digits only: no sign, no fraction).
CLI::Validator whole_number(std::uint64_t min, std::uint64_t max);
// A finite decimal number from `min` to `max`.
CLI::Validator real_number(double min, double max);
// A duration above zero with its unit ("10s", "500 ms", "2us"), as in the configuration.
CLI::Validator positive_duration();

// The message for a failed parse, without the "ncp2: " prefix. `command` is the subcommand the
// user asked for ("" when none), to point at its --help.
std::string explain_parse_error(const CLI::ParseError& error, const std::string& command);

}  // namespace ncp2::cli
