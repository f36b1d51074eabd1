#pragma once
// Where a real run's page miss spends its time (bench/real_machine/path_trace/README.md): marks with
// CLOCK_MONOTONIC (one clock for every process on a host) in a fixed array, written at the
// agent's end to /tmp/trace-NODE.txt as "NS NODE LABEL". Only in a scratch checkout.
#include <atomic>
#include <cstdio>
#include <ctime>

namespace ncp2::real::trace {
struct Entry {
  const char* label;
  long ns;
};
inline constexpr int kEntries = 1 << 16;
inline Entry entries[kEntries];
inline std::atomic<int> count{0};
inline long now() {
  timespec t{};
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1'000'000'000L + t.tv_nsec;
}
inline void mark(const char* label) {
  const int k = count.fetch_add(1);
  if (k < kEntries) entries[k] = {label, now()};
}
inline void dump(int node) {
  char path[64];
  std::snprintf(path, sizeof path, "/tmp/trace-%d.txt", node);
  FILE* f = std::fopen(path, "w");
  if (f == nullptr) return;
  const int n = count.load() < kEntries ? count.load() : kEntries;
  for (int k = 0; k < n; ++k) std::fprintf(f, "%ld %d %s\n", entries[k].ns, node, entries[k].label);
  std::fclose(f);
}
}  // namespace ncp2::real::trace
