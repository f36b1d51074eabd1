#pragma once
// The memory bus of a node, shared by the PP (copies) and the CP's DMA engine. A transfer
// occupies the bus for bytes / min(engine bandwidth, bus bandwidth); transfers queue in the order
// they are requested (first come, first served).
#include <algorithm>
#include <cstdint>

#include "emulator/time.hpp"

namespace ncp2::emu {

class MemoryBus {
 public:
  explicit MemoryBus(double bytes_per_second) : bandwidth_(bytes_per_second) {}

  // Reserves the bus for a transfer of `bytes` by an engine of `engine_bandwidth`, starting no
  // earlier than `earliest`. Returns the time the transfer ends.
  TimePoint transfer(TimePoint earliest, std::int64_t bytes, double engine_bandwidth) {
    if (bytes <= 0) return earliest;
    const TimePoint start = std::max(earliest, free_at_);
    waited_ += start - earliest;
    const Duration busy = transfer_time_(bytes, std::min(engine_bandwidth, bandwidth_));
    free_at_ = start + busy;
    busy_ += busy;
    bytes_ += bytes;
    ++transfers_;
    return free_at_;
  }

  [[nodiscard]] double bandwidth() const { return bandwidth_; }
  [[nodiscard]] Duration busy_time() const { return busy_; }
  [[nodiscard]] Duration contention_wait() const { return waited_; }
  [[nodiscard]] std::int64_t bytes() const { return bytes_; }
  [[nodiscard]] std::int64_t transfers() const { return transfers_; }

 private:
  double bandwidth_;
  TimePoint free_at_ = kTimeZero;
  Duration busy_{0};
  Duration waited_{0};
  std::int64_t bytes_ = 0;
  std::int64_t transfers_ = 0;
  TransferTimeMemo transfer_time_;
};

}  // namespace ncp2::emu
