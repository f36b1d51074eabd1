// The host's and the build's identity (validation/host_identity.hpp).
#include "validation/host_identity.hpp"

#include <elfutils/libdwelf.h>
#include <fcntl.h>
#include <libelf.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>

#include <fmt/format.h>

#include "real_machine/subprocess.hpp"
#include "run/content_hash.hpp"
#include "validation/calibrate_host.hpp"

namespace ncp2::validation {

namespace {

// An ELF file opened with elfutils' libelf, closed with it.
class ElfFile {
 public:
  explicit ElfFile(const std::string& path) : fd_(::open(path.c_str(), O_RDONLY | O_CLOEXEC)) {
    if (fd_ >= 0 && elf_version(EV_CURRENT) != EV_NONE) elf_ = elf_begin(fd_, ELF_C_READ_MMAP, nullptr);
  }
  ~ElfFile() {
    if (elf_) elf_end(elf_);
    if (fd_ >= 0) ::close(fd_);
  }
  ElfFile(const ElfFile&) = delete;
  ElfFile& operator=(const ElfFile&) = delete;
  [[nodiscard]] Elf* get() const { return elf_; }

 private:
  int fd_;
  Elf* elf_ = nullptr;
};

}  // namespace

std::string cpu_model_of(std::string_view cpuinfo) {
  for (const std::string_view key : {"model name", "Hardware"}) {
    std::size_t at = 0;
    while ((at = cpuinfo.find(key, at)) != std::string_view::npos) {
      const bool line_start = at == 0 || cpuinfo[at - 1] == '\n';
      const std::size_t end = std::min(cpuinfo.find('\n', at), cpuinfo.size());
      const std::size_t colon = cpuinfo.find(':', at);
      at += key.size();
      if (!line_start || colon == std::string_view::npos || colon > end) continue;
      std::string_view value = cpuinfo.substr(colon + 1, end - colon - 1);
      while (!value.empty() && (value.front() == ' ' || value.front() == '\t')) value.remove_prefix(1);
      while (!value.empty() && (value.back() == ' ' || value.back() == '\t')) value.remove_suffix(1);
      if (!value.empty()) return std::string(value);
    }
  }
  return "unknown";
}

HostIdentity this_host() {
  std::ifstream in("/proc/cpuinfo");
  const std::string cpuinfo{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  return {host_name(), cpu_model_of(cpuinfo), static_cast<int>(::sysconf(_SC_NPROCESSORS_ONLN))};
}

std::uint64_t hash_bytes(std::string_view bytes) { return run::content_hash(bytes); }

std::optional<std::uint64_t> hash_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  run::ContentHash h;
  std::vector<char> buffer(1 << 20);
  while (in.read(buffer.data(), static_cast<std::streamsize>(buffer.size())) || in.gcount() > 0)
    h.add({buffer.data(), static_cast<std::size_t>(in.gcount())});
  if (in.bad()) return std::nullopt;
  return h.value();
}

std::optional<std::string> gnu_build_id(const std::string& path) {
  const ElfFile elf(path);
  if (!elf.get() || elf_kind(elf.get()) != ELF_K_ELF) return std::nullopt;
  const void* id = nullptr;
  const ssize_t size = dwelf_elf_gnu_build_id(elf.get(), &id);
  if (size <= 0) return std::nullopt;
  std::string hex;
  for (ssize_t i = 0; i < size; ++i) hex += fmt::format("{:02x}", static_cast<const unsigned char*>(id)[i]);
  return hex;
}

std::string build_identity(const std::vector<std::string>& executables) {
  std::string out;
  for (const std::string& path : executables) {
    if (!out.empty()) out += ';';
    out += std::filesystem::path(path).filename().string() + '=';
    if (const auto id = gnu_build_id(path)) {
      out += "build-id:" + *id;
      continue;
    }
    const auto hash = hash_file(path);
    if (!hash) throw std::runtime_error(fmt::format("cannot read {} to tell which build it is", path));
    out += fmt::format("content:{:016x}", *hash);
  }
  return out;
}

std::string this_build() {
  std::vector<std::string> files{real::executable_next_to_us("ncp2"),
                                 real::executable_next_to_us("ncp2-node")};
  // The runtime library and the pass ncp2-cc builds programs with (the calibration's among them),
  // where ncp2-cc finds them: next to bin/ in the build tree and in an install.
  const std::filesystem::path lib = std::filesystem::path(real::own_directory()).parent_path() / "lib";
  for (const auto& name : {"libncp2tmk.a", "libncp2_count_pass.so", "ncp2/libncp2_count_pass.so"}) {
    std::error_code ec;
    if (std::filesystem::is_regular_file(lib / name, ec)) files.push_back((lib / name).string());
  }
  return build_identity(files);
}

}  // namespace ncp2::validation
