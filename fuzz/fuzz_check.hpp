#pragma once
// A fuzz target's own checks: a property that fails aborts with a message, which libFuzzer (and
// the replay test) reports as a crash with the input that caused it.
#include <cstdio>
#include <cstdlib>
#include <string_view>

namespace ncp2::fuzz {

inline void check(bool ok, std::string_view what) {
  if (ok) return;
  std::fprintf(stderr, "fuzz check failed: %.*s\n", static_cast<int>(what.size()), what.data());
  std::abort();
}

}  // namespace ncp2::fuzz
