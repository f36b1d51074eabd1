#pragma once
// A shared array of a workload: the core's region (its pages and first home,
// lrc/page_directory.hpp) with what the typed API adds, for the runtime and the reports that
// name arrays.
#include <cstddef>
#include <string>

#include "lrc/page_directory.hpp"

namespace ncp2::dsm {

struct RegionInfo : lrc::Region {
  std::string name;
  std::size_t count = 0;         // elements
  std::size_t element_size = 0;  // bytes
};

}  // namespace ncp2::dsm
