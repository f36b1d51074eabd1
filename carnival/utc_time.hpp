#pragma once
// When a run started, as every store records it (runs.started_at, counter_runs.started_at): ISO
// 8601 in UTC, to the second.
#include <array>
#include <ctime>
#include <string>

namespace ncp2::carnival {

inline std::string utc_now_iso() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  ::gmtime_r(&t, &tm);
  std::array<char, 32> text{};
  std::strftime(text.data(), text.size(), "%Y-%m-%dT%H:%M:%SZ", &tm);
  return text.data();
}

}  // namespace ncp2::carnival
