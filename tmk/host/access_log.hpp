#pragma once
// The access log of a node whose program records its accesses to shared memory (ncp2-cc
// --ncp2-races, `ncp2 run --detect-races`): a memfd the node process maps next to its channel
// (tmk/channel.hpp AccessLogLayout). The program sets a bit per byte it reads or writes in the
// shared heap and keeps the first place of each; the emulator merges them into the race detector
// as the node's accesses of its current segment and clears them, while the process waits.
#include <cstddef>
#include <cstdint>
#include <string>

#include "dsm/race_detector.hpp"
#include "tmk/channel.hpp"

namespace ncp2::tmk {

class AccessLog {
 public:
  // For a shared heap of `heap_bytes` in pages of `page_bytes`. Throws std::runtime_error.
  AccessLog(std::size_t heap_bytes, std::size_t page_bytes);
  ~AccessLog();
  AccessLog(const AccessLog&) = delete;
  AccessLog& operator=(const AccessLog&) = delete;

  // The descriptor the node process inherits (kAccessLogFdEnv); close_fd() once it is started.
  [[nodiscard]] int fd() const { return fd_; }
  void close_fd();

  // Pages with accesses since the last merge.
  [[nodiscard]] std::uint32_t touched() const { return header_->touched; }
  // Hands the recorded accesses to `detector` as node `node`'s, heap page p being the detector's
  // page `first_page + p`, with the sites' CARNIVAL scope `scope`; clears them. Throws
  // dsm::DsmError when the log is not what the runtime writes (the program wrote over it).
  void merge_into(dsm::RaceDetector& detector, dsm::NodeId node, std::uint32_t first_page,
                  std::uint32_t scope);

  // The mapping and its layout (the runtime's side, for tests).
  [[nodiscard]] std::byte* data() { return data_; }
  [[nodiscard]] const AccessLogLayout& layout() const { return layout_; }

 private:
  AccessLogLayout layout_;
  int fd_ = -1;
  std::byte* data_ = nullptr;
  AccessLogHeader* header_ = nullptr;
};

// True when the executable at `path` was built with ncp2-cc --ncp2-races (it has the race checks'
// marker section). False when it has not, or is no ELF file.
[[nodiscard]] bool built_with_race_checks(const std::string& path);

// "<prog> was built without access checks, so ...": the refusal of --detect-races.
[[nodiscard]] std::string without_race_checks_message(const std::string& path);

}  // namespace ncp2::tmk
