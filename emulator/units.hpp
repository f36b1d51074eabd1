#pragma once
// Values with units, as written in configuration files and on the command line. The parsers throw
// ConfigError (emulator/config_error.hpp) saying what is wrong with the text.
#include <string>
#include <string_view>

#include "emulator/time.hpp"

namespace ncp2::emu {

Duration parse_duration(std::string_view text);  // "4us", "0.5 ms", "120 ns", "0"
double parse_bandwidth(std::string_view text);   // "1.28 Gbit/s", "160 MB/s" -> bytes/s
std::string format_bandwidth(double bytes_per_second);

// `s` without leading and trailing white space.
std::string_view trim(std::string_view s);

}  // namespace ncp2::emu
