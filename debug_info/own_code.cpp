#include "debug_info/own_code.hpp"

#include <link.h>
#include <unistd.h>

#include <array>
#include <memory>
#include <mutex>
#include <string>

namespace ncp2::debug_info {

namespace {

// The executable: the first object dl_iterate_phdr reports, its load bias and the addresses its
// loadable segments cover.
struct Executable {
  std::uint64_t bias = 0;
  std::uint64_t low = ~std::uint64_t{0};
  std::uint64_t high = 0;
  bool found = false;
};

int first_object(dl_phdr_info* info, std::size_t /*size*/, void* data) {
  auto& exe = *static_cast<Executable*>(data);
  exe.bias = info->dlpi_addr;
  for (ElfW(Half) i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& segment = info->dlpi_phdr[i];
    if (segment.p_type != PT_LOAD) continue;
    exe.low = std::min<std::uint64_t>(exe.low, info->dlpi_addr + segment.p_vaddr);
    exe.high = std::max<std::uint64_t>(exe.high, info->dlpi_addr + segment.p_vaddr + segment.p_memsz);
  }
  exe.found = true;
  return 1;  // the executable only
}

std::string executable_path() {
  std::array<char, 4096> path{};
  const ssize_t n = ::readlink("/proc/self/exe", path.data(), path.size() - 1);
  return n > 0 ? std::string(path.data(), static_cast<std::size_t>(n)) : std::string();
}

}  // namespace

SourceLine own_code_line(std::uint64_t pc) {
  static std::mutex mutex;
  static Executable exe;
  static std::unique_ptr<SourceLines> lines;
  const std::lock_guard lock(mutex);
  if (!exe.found) {
    dl_iterate_phdr(first_object, &exe);
    lines = std::make_unique<SourceLines>(executable_path(), exe.bias);
  }
  if (pc < exe.low || pc >= exe.high) return {};
  return lines->program_line(pc);
}

}  // namespace ncp2::debug_info
