#include "tmk/host/access_log.hpp"

#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <span>
#include <stdexcept>
#include <vector>

#include <fmt/format.h>

#include "dsm/runtime.hpp"

namespace ncp2::tmk {

namespace {
constexpr const char* kMarkerSection = "ncp2_race_checks";  // tmk/instrument/race_pass.cpp

// The places the program noted for one kind of access to a page (ranges clamped to the page: the
// program could have written anything there).
std::vector<dsm::SiteRange> site_ranges(std::span<const AccessSiteRange> noted, std::uint32_t scope,
                                        std::size_t page_bytes) {
  std::vector<dsm::SiteRange> out;
  const auto last_byte = static_cast<std::uint32_t>(page_bytes - 1);
  for (const AccessSiteRange& s : noted) {
    if (s.pc == 0) break;
    dsm::SiteRange r;
    r.site = dsm::AccessSite{s.pc, 0, scope};
    r.first = std::min(s.first, last_byte);
    r.last = std::min(std::max(s.last, r.first), last_byte);
    out.push_back(r);
  }
  return out;
}
}  // namespace

AccessLog::AccessLog(std::size_t heap_bytes, std::size_t page_bytes)
    : layout_(access_log_layout(heap_bytes, page_bytes)) {
  // Not close-on-exec: the node process inherits it.
  fd_ = static_cast<int>(syscall(SYS_memfd_create, "ncp2-tmk-access-log", 0));
  if (fd_ < 0) throw std::runtime_error(fmt::format("cannot create an access log: {}", std::strerror(errno)));
  if (ftruncate(fd_, static_cast<off_t>(layout_.total_bytes)) != 0) {
    const int e = errno;
    close_fd();
    throw std::runtime_error(
        fmt::format("cannot size an access log to {} bytes: {}", layout_.total_bytes, std::strerror(e)));
  }
  void* at = mmap(nullptr, layout_.total_bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_NORESERVE, fd_, 0);
  if (at == MAP_FAILED) {
    const int e = errno;
    close_fd();
    throw std::runtime_error(
        fmt::format("cannot map an access log of {} bytes: {}", layout_.total_bytes, std::strerror(e)));
  }
  data_ = static_cast<std::byte*>(at);
  header_ = reinterpret_cast<AccessLogHeader*>(data_);
  header_->page_bytes = page_bytes;
  header_->pages = layout_.pages;
  header_->touched = 0;
  header_->magic = kChannelMagic;
}

AccessLog::~AccessLog() {
  if (data_) munmap(data_, layout_.total_bytes);
  close_fd();
}

void AccessLog::close_fd() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

void AccessLog::merge_into(dsm::RaceDetector& detector, dsm::NodeId node, std::uint32_t first_page,
                           std::uint32_t scope) {
  const std::uint32_t n = header_->touched;
  if (n == 0) return;
  if (n > layout_.pages || header_->magic != kChannelMagic)
    throw dsm::DsmError(
        fmt::format("node {}: its access log is damaged (did the program write over it?)", emu::index(node)));
  const auto* touched = reinterpret_cast<const std::uint32_t*>(data_ + layout_.touched_at);
  auto* sites = reinterpret_cast<AccessSites*>(data_ + layout_.sites_at);
  auto* bits = reinterpret_cast<std::uint64_t*>(data_ + layout_.bits_at);
  const std::size_t words = layout_.words;
  for (std::uint32_t i = 0; i < n; ++i) {
    const std::uint32_t page = touched[i];
    if (page >= layout_.pages)
      throw dsm::DsmError(fmt::format("node {}: its access log names page {} of a heap of {} pages",
                                      emu::index(node), page, layout_.pages));
    std::uint64_t* read = bits + std::size_t{page} * 2 * words;
    std::uint64_t* write = read + words;
    const auto read_sites = site_ranges(sites[page].read, scope, layout_.words * 64);
    const auto write_sites = site_ranges(sites[page].write, scope, layout_.words * 64);
    detector.merge(node, dsm::PageId{first_page + page}, std::span<const std::uint64_t>(read, words),
                   std::span<const std::uint64_t>(write, words), read_sites, write_sites);
    std::memset(read, 0, 2 * words * sizeof(std::uint64_t));
    sites[page] = {};
  }
  header_->touched = 0;
}

bool built_with_race_checks(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  elf_version(EV_CURRENT);
  Elf* elf = elf_begin(fd, ELF_C_READ, nullptr);
  bool found = false;
  std::size_t names = 0;
  if (elf && elf_kind(elf) == ELF_K_ELF && elf_getshdrstrndx(elf, &names) == 0) {
    for (Elf_Scn* scn = elf_nextscn(elf, nullptr); scn && !found; scn = elf_nextscn(elf, scn)) {
      GElf_Shdr header;
      if (!gelf_getshdr(scn, &header)) continue;
      const char* name = elf_strptr(elf, names, header.sh_name);
      found = name && std::strcmp(name, kMarkerSection) == 0;
    }
  }
  if (elf) elf_end(elf);
  ::close(fd);
  return found;
}

std::string without_race_checks_message(const std::string& path) {
  return fmt::format(
      "{} was built without access checks, so its data races cannot be found: rebuild it with ncp2-cc "
      "--ncp2-races",
      path);
}

}  // namespace ncp2::tmk
