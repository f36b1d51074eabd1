#pragma once
// The shared object that ncp2-cc embeds in a program's executable for the fiber runner (section
// tmk::kFiberSection, tmk/fiber_abi.hpp): read back from the executable's file, never loaded from
// it. Bad input (a missing file, another kind of file, a corrupt or truncated ELF) is a message.
#include <cstddef>
#include <string>
#include <vector>

namespace ncp2::tmk {

struct FiberObject {
  std::vector<std::byte> bytes;  // the shared object's file, as ncp2-cc linked it
  // What the loader reads of it: up to the end of its last loadable segment (the rest, debugging
  // information and section headers, need not be in every node's copy). bytes.size() when its
  // program headers cannot be read.
  std::size_t loaded_bytes = 0;
  std::string error;  // why there is none ("" when `bytes` holds it), naming the path

  [[nodiscard]] bool found() const { return error.empty(); }
};

[[nodiscard]] FiberObject read_fiber_object(const std::string& path);

}  // namespace ncp2::tmk
