#pragma once
// One quantity measured and predicted side by side (`ncp2 validate`: a category, a wait part, a
// scope, a node, an operation's protocol work), in seconds.
#include <cstdint>
#include <optional>
#include <string>

namespace ncp2::validation {

// Picoseconds of a database as seconds.
inline double seconds(std::int64_t ps) { return static_cast<double>(ps) * 1e-12; }

struct Compared {
  std::string name;
  double measured_s = 0;
  double predicted_s = 0;
  [[nodiscard]] std::optional<double> error_pct() const;  // nullopt when nothing was measured
};

}  // namespace ncp2::validation
