#pragma once
// What one node of a real run measured, in its own clock: the profile (scope x category x
// operation), its waits cut into the parts that can be observed, and the scopes it used by their
// source place (scope ids are per process, so they travel by place and node 0 renumbers them).
// Node 0 gathers every node's record and writes the run's database (results.hpp).
#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "carnival/model.hpp"
#include "lrc/counters.hpp"
#include "real_machine/wire.hpp"

namespace ncp2::real {

struct SiteKey {
  std::string name;
  std::string kind;
  std::string file;
  int line = 0;
  int end_line = 0;
};

// One wait as the node measured it (ns of the node's clock): the parts it could observe, where an
// emulated run has its stamp chain (dsm::WaitRecord); both become carnival::WaitRow.
struct MeasuredWait {
  std::uint32_t scope = 0;
  std::string operation;
  double start_ns = 0;  // the node's clock
  double duration_ns = 0;
  std::array<double, carnival::kWaitParts> parts{};
  int cause_node = -1;
  std::uint64_t object = 0;
  int remote_node = -1;
};

// One stretch of the node's time for the timeline (ns of the node's clock).
struct SegmentRecord {
  bool cp = false;  // the agent's service thread (else the program, the PP)
  carnival::Category category = carnival::Category::Comp;
  std::string operation;
  std::uint32_t scope = 0;
  double start_ns = 0;
  double end_ns = 0;
};

class NodeRecord {
 public:
  int node = 0;
  double start_ns = 0;     // the node's clock when its program started
  double finish_ns = 0;    // ... when its program posted its exit
  int exit_status = -1;    // the program's wait status (-1: unknown)
  std::string failure;     // why the node failed, if it did
  bool deadlock = false;   // ... because node 0 found every node waiting for another
  bool limit = false;      // ... because the run reached its host-time limit (--max-wall)
  lrc::Counters counters;  // what the protocol core counted (the emulated runs count the same)
  std::map<std::uint32_t, SiteKey> sites;
  std::map<std::tuple<std::uint32_t, carnival::Category, std::string>, std::pair<double, std::uint64_t>>
      profile;
  std::vector<MeasuredWait> waits;
  std::vector<SegmentRecord> segments;  // at most max_segments
  std::size_t max_segments = 0;
  std::uint64_t segments_dropped = 0;

  // A stretch for the timeline, unless the node's share of --max-timeline is used up.
  void add_segment(SegmentRecord s);

  void add(std::uint32_t scope, carnival::Category category, const std::string& operation, double ns);
  // Keeps the site's place so that node 0 can renumber the scope.
  void note_site(std::uint32_t id);

  [[nodiscard]] std::vector<std::byte> encode() const;
  static NodeRecord decode(std::span<const std::byte> bytes);
};

}  // namespace ncp2::real
