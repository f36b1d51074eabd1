#include "run/code_places.hpp"

#include <fmt/format.h>

#include "carnival/run_scopes.hpp"
#include "debug_info/own_code.hpp"

namespace ncp2::run {

dsm::Runtime::CodePlaces code_places() {
  dsm::Runtime::CodePlaces places;
  places.line_of = [](std::uint64_t address) {
    const debug_info::SourceLine line = debug_info::own_code_line(address);
    return line.known() ? fmt::format("{}:{}", carnival::relative_source_path(line.file), line.line)
                        : std::string();
  };
  places.path_of = [](const char* file) { return carnival::relative_source_path(file); };
  return places;
}

}  // namespace ncp2::run
