#pragma once
// The fuzz input as a file of its own, for readers that take a path (SQLite, libelf, libdw): one
// per process (libFuzzer runs one input at a time), removed at exit.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <string>
#include <string_view>

#include <fmt/format.h>

#include "fuzz/fuzz_check.hpp"

namespace ncp2::fuzz {

class InputFile {
 public:
  explicit InputFile(std::string_view name) : path_(fmt::format("/tmp/ncp2-fuzz-{}-{}", name, ::getpid())) {}
  ~InputFile() { std::remove(path_.c_str()); }
  InputFile(const InputFile&) = delete;
  InputFile& operator=(const InputFile&) = delete;

  // Replaces the file's content with the input; returns its path.
  const std::string& write(const std::uint8_t* data, std::size_t size) const {
    std::ofstream out(path_, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
    out.close();
    check(static_cast<bool>(out), "cannot write the input file");
    return path_;
  }

 private:
  std::string path_;
};

}  // namespace ncp2::fuzz
