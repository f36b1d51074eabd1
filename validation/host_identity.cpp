// The host's and the build's identity (validation/host_identity.hpp).
#include "validation/host_identity.hpp"

#include <elf.h>
#include <fcntl.h>
#include <unistd.h>

#include <array>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>

#include <fmt/format.h>

#include "real_machine/subprocess.hpp"
#include "validation/calibrate_host.hpp"

namespace ncp2::validation {

namespace {

constexpr std::uint64_t kPrime1 = 0x9E3779B185EBCA87ULL;  // xxHash64's primes
constexpr std::uint64_t kPrime2 = 0xC2B2AE3D27D4EB4FULL;
constexpr std::uint64_t kPrime3 = 0x165667B19E3779F9ULL;
constexpr std::size_t kBlock = 32;  // four lanes of 8 bytes

std::uint64_t rotl(std::uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }

// Four independent lanes, so the multiplications of one block overlap.
class Hasher {
 public:
  void blocks(const unsigned char* p, std::size_t n) {
    for (; n >= kBlock; p += kBlock, n -= kBlock)
      for (std::size_t k = 0; k < 4; ++k) {
        std::uint64_t w = 0;
        std::memcpy(&w, p + 8 * k, 8);
        lanes_[k] = rotl(lanes_[k] + w * kPrime2, 31) * kPrime1;
      }
  }
  std::uint64_t finish(const unsigned char* tail, std::size_t n, std::uint64_t total) const {
    std::uint64_t h = rotl(lanes_[0], 1) + rotl(lanes_[1], 7) + rotl(lanes_[2], 12) + rotl(lanes_[3], 18);
    h += total;
    for (std::size_t i = 0; i < n; ++i) h = rotl(h ^ (tail[i] * kPrime3), 11) * kPrime1;
    h ^= h >> 33;  // avalanche, so nearby inputs differ in every bit
    h *= kPrime2;
    h ^= h >> 29;
    h *= kPrime3;
    return h ^ (h >> 32);
  }

 private:
  std::array<std::uint64_t, 4> lanes_{kPrime1 + kPrime2, kPrime2, 0, 0 - kPrime1};
};

// Reads until `n` bytes or the end of the file; -1 on an error.
ssize_t read_fully(int fd, unsigned char* buffer, std::size_t n) {
  std::size_t got = 0;
  while (got < n) {
    const ssize_t r = ::read(fd, buffer + got, n - got);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) return -1;
    if (r == 0) break;
    got += static_cast<std::size_t>(r);
  }
  return static_cast<ssize_t>(got);
}

bool read_at(std::ifstream& in, std::uint64_t offset, void* out, std::size_t n) {
  in.seekg(static_cast<std::streamoff>(offset));
  in.read(static_cast<char*>(out), static_cast<std::streamsize>(n));
  return static_cast<std::size_t>(in.gcount()) == n;
}

// The build ID among the notes of one PT_NOTE segment (`align`: 4 or 8).
std::optional<std::string> build_id_in(const std::vector<unsigned char>& notes, std::size_t align) {
  const auto up = [align](std::size_t n) { return (n + align - 1) / align * align; };
  std::size_t at = 0;
  while (at + sizeof(Elf64_Nhdr) <= notes.size()) {
    Elf64_Nhdr h{};
    std::memcpy(&h, notes.data() + at, sizeof h);
    const std::size_t name = at + sizeof h;
    const std::size_t desc = name + up(h.n_namesz);
    if (desc + h.n_descsz > notes.size()) return std::nullopt;
    if (h.n_type == NT_GNU_BUILD_ID && h.n_namesz == 4 && std::memcmp(notes.data() + name, "GNU", 4) == 0) {
      std::string hex;
      for (std::size_t i = 0; i < h.n_descsz; ++i) hex += fmt::format("{:02x}", notes[desc + i]);
      return hex;
    }
    at = desc + up(h.n_descsz);
  }
  return std::nullopt;
}

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

std::uint64_t hash_bytes(std::string_view bytes) {
  const auto* p = reinterpret_cast<const unsigned char*>(bytes.data());
  const std::size_t whole = bytes.size() / kBlock * kBlock;
  Hasher h;
  h.blocks(p, whole);
  return h.finish(p + whole, bytes.size() - whole, bytes.size());
}

std::optional<std::uint64_t> hash_file(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  std::vector<unsigned char> buffer(1 << 20);  // a multiple of kBlock: only the last chunk has a tail
  Hasher h;
  std::uint64_t total = 0;
  for (;;) {
    const ssize_t n = read_fully(fd, buffer.data(), buffer.size());
    if (n < 0) {
      ::close(fd);
      return std::nullopt;
    }
    total += static_cast<std::uint64_t>(n);
    if (static_cast<std::size_t>(n) < buffer.size()) {
      const std::size_t whole = static_cast<std::size_t>(n) / kBlock * kBlock;
      h.blocks(buffer.data(), whole);
      ::close(fd);
      return h.finish(buffer.data() + whole, static_cast<std::size_t>(n) - whole, total);
    }
    h.blocks(buffer.data(), buffer.size());
  }
}

std::optional<std::string> gnu_build_id(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  Elf64_Ehdr e{};
  if (!in || !read_at(in, 0, &e, sizeof e) || std::memcmp(e.e_ident, ELFMAG, SELFMAG) != 0 ||
      e.e_ident[EI_CLASS] != ELFCLASS64 || e.e_phentsize != sizeof(Elf64_Phdr))
    return std::nullopt;
  for (std::size_t i = 0; i < e.e_phnum; ++i) {
    Elf64_Phdr ph{};
    if (!read_at(in, e.e_phoff + i * sizeof ph, &ph, sizeof ph)) return std::nullopt;
    if (ph.p_type != PT_NOTE || ph.p_filesz > (1U << 20)) continue;
    std::vector<unsigned char> notes(ph.p_filesz);
    if (!read_at(in, ph.p_offset, notes.data(), notes.size())) return std::nullopt;
    if (auto id = build_id_in(notes, ph.p_align == 8 ? 8 : 4)) return id;
  }
  return std::nullopt;
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
