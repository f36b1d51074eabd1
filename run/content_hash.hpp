#pragma once
// A 64-bit FNV-1a hash: stable across runs, hosts and builds, not cryptographic. It tells texts
// and files apart (a run history's key, a kept calibration's preset and build); fed in pieces it
// gives what it gives for the whole.
#include <cstdint>
#include <string_view>

namespace ncp2::run {

class ContentHash {
 public:
  void add(std::string_view bytes) {
    for (const char c : bytes) {
      value_ ^= static_cast<unsigned char>(c);
      value_ *= 0x100000001b3ULL;
    }
  }
  [[nodiscard]] std::uint64_t value() const { return value_; }

 private:
  std::uint64_t value_ = 0xcbf29ce484222325ULL;
};

[[nodiscard]] inline std::uint64_t content_hash(std::string_view bytes) {
  ContentHash h;
  h.add(bytes);
  return h.value();
}

}  // namespace ncp2::run
