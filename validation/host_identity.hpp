#pragma once
// What a kept calibration (validation/calibration_cache.hpp) was made on and by: the host (its
// name, CPU model and online CPUs) and the build (ncp2's executables). A calibration made on
// another host or by another build is made again.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ncp2::validation {

struct HostIdentity {
  std::string name;       // uname's node name
  std::string cpu_model;  // /proc/cpuinfo's first "model name" (or "unknown")
  int cpus = 0;           // online CPUs
  friend bool operator==(const HostIdentity&, const HostIdentity&) = default;
};

[[nodiscard]] HostIdentity this_host();
// The CPU model named by a /proc/cpuinfo text ("model name", else "Hardware", else "unknown").
[[nodiscard]] std::string cpu_model_of(std::string_view cpuinfo);

// A 64-bit hash of bytes (run/content_hash.hpp): not cryptographic, only to notice a changed file.
[[nodiscard]] std::uint64_t hash_bytes(std::string_view bytes);
// The same hash of a file's content, read in chunks; nullopt when it cannot be read.
[[nodiscard]] std::optional<std::uint64_t> hash_file(const std::string& path);

// The GNU build ID the linker wrote into an ELF executable (a hash of its content), as hex, read
// with elfutils; nullopt for a file without one (not ELF, or linked with --build-id=none).
[[nodiscard]] std::optional<std::string> gnu_build_id(const std::string& path);

// The identity of a build made of `executables`: each one's GNU build ID, or where it has none the
// hash of its content ("name=build-id:HEX;..." / "name=content:HEX;..."). Throws
// std::runtime_error naming a file that cannot be read.
[[nodiscard]] std::string build_identity(const std::vector<std::string>& executables);
// This build: ncp2 and ncp2-node next to the running executable, and the runtime library and pass
// ncp2-cc links programs with (../lib), where present.
[[nodiscard]] std::string this_build();

}  // namespace ncp2::validation
