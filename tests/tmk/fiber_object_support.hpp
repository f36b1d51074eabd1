#pragma once
// For the fiber object's tests: a program built with ncp2-cc (NCP2_CC, set by CMake) in a test's
// own directory, and copies of its fiber object loaded with dlopen as the fiber runner loads them.
#include <dlfcn.h>

#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "real_machine/subprocess.hpp"
#include "tmk/host/fiber_object.hpp"

namespace ncp2::tmk::testing {

// ncp2-cc ARGUMENTS...; its exit code and output.
inline real::CommandResult ncp2_cc(std::vector<std::string> arguments) {
  arguments.insert(arguments.begin(), NCP2_CC);
  return real::run_command(arguments);
}

inline std::string probe_source() { return std::string(NCP2_SOURCE_DIR) + "/tests/tmk/fiber_libc_probe.c"; }

inline void write_bytes(const std::string& path, const std::vector<std::byte>& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

struct DlClose {
  void operator()(void* handle) const { dlclose(handle); }
};
using Loaded = std::unique_ptr<void, DlClose>;

// The file at `path` loaded as the fiber runner loads a node's copy: its own symbols first.
inline Loaded load_copy(const std::string& path) {
  Loaded loaded(dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL));
  const char* error = loaded ? nullptr : dlerror();
  EXPECT_TRUE(loaded) << path << ": " << (error ? error : "?");
  return loaded;
}

}  // namespace ncp2::tmk::testing
