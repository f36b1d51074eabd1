#pragma once
// What the protocol core is configured with: the sizes and the policies that the emulated and the
// real runs honour alike (docs/protocol.md). Times and costs are not here: the core charges none.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "lrc/types.hpp"

namespace ncp2::lrc {

// Where a node that has never held a page gets it.
enum class FirstTouch : std::uint8_t {
  // TreadMarks: the page's home (the allocating node, node 0) holds every page at first; another
  // node's first access fetches the home's copy (a page request).
  FromHome,
  // Every node starts with a valid zero copy of every page: no page requests at all; the writes
  // made before the first synchronization reach the others as diffs.
  ZeroEverywhere,
};

// What a garbage collection does with a copy that write notices made stale.
enum class GcCopies : std::uint8_t {
  // Each page written since the last collection gets its last writer as new home, which brings its
  // copy up to date; every other node drops a stale copy and asks the home for the page if it
  // needs it again.
  LastWriter,
  // Every node brings every stale copy it holds up to date (no copy is dropped).
  ValidateAll,
};

std::string_view to_string(FirstTouch f);
std::string_view to_string(GcCopies g);
std::optional<FirstTouch> first_touch_named(std::string_view name);
std::optional<GcCopies> gc_copies_named(std::string_view name);

struct ProtocolConfig {
  int nodes = 1;
  std::size_t page_size = 4096;
  int word_size = 4;                                      // the unit of a diff's runs
  std::size_t gc_threshold_bytes = std::size_t{1} << 20;  // a node's diffs + notices that trigger a GC
  NodeId barrier_manager{};
  FirstTouch first_touch = FirstTouch::FromHome;
  GcCopies gc_copies = GcCopies::LastWriter;
  // Make each written page's diff when its interval closes (a real run: its service thread answers
  // while the program writes on) rather than lazily (the emulator). Host work only: the protocol's
  // decisions and counts are the same either way (lrc/node_diffs.cpp).
  bool copy_at_close = false;
};

}  // namespace ncp2::lrc

namespace ncp2::lrc {

// The configuration as one argument ("page_size=4096,word_size=4,..."): how a real run hands the
// protocol to each node's agent (ncp2-node --protocol), written and read here only.
std::string protocol_argument(const ProtocolConfig& config);
// Throws std::invalid_argument naming the key or value that does not parse. Keys not given keep
// their defaults; `nodes` and copy_at_close are the run's own, never in the argument.
ProtocolConfig parse_protocol_argument(std::string_view text);

}  // namespace ncp2::lrc
