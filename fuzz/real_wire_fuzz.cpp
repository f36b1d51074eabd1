// Fuzz target: what a node of a real run reads from the others (real_machine/wire.hpp): a node's
// record (node 0 gathers them) and interval records with their write notices (lock grants and
// barrier releases). A malformed message must end in std::runtime_error or std::logic_error (the
// agent turns either into a failed run with the message), never a crash; a record that decodes
// must encode back to the same bytes it decodes from.
#include <cstddef>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <vector>

#include "fuzz/fuzz_check.hpp"
#include "real_machine/lrc_node.hpp"
#include "real_machine/node_record.hpp"

namespace {

void node_record(std::span<const std::byte> bytes) {
  ncp2::real::NodeRecord record;
  try {
    record = ncp2::real::NodeRecord::decode(bytes);
  } catch (const std::runtime_error&) {
    return;
  }
  const std::vector<std::byte> encoded = record.encode();
  const ncp2::real::NodeRecord again = ncp2::real::NodeRecord::decode(encoded);
  ncp2::fuzz::check(again.encode() == encoded, "a decoded node record does not encode back the same");
}

// Intervals taken in by a node of 3 with 4 pages (what a grant or a release does).
void intervals(std::span<const std::byte> bytes) {
  std::vector<std::byte> heap(std::size_t{4} * 4096);
  ncp2::real::LrcNode node(1, 3, heap, 4096);
  try {
    ncp2::real::WireReader r(bytes);
    const std::vector<ncp2::real::IntervalRecord> records = ncp2::real::read_intervals(r);
    node.incorporate(records);
  } catch (const std::runtime_error&) {
    return;
  } catch (const std::logic_error&) {
    return;
  }
  for (std::uint32_t page = 0; page < node.pages(); ++page)
    for (const auto& need : node.missing_diffs(page))
      ncp2::fuzz::check(need.creator != 1, "a node needs its own diff");
}

}  // namespace

// NOLINTNEXTLINE(readability-identifier-naming): libFuzzer's entry point
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const auto bytes = std::as_bytes(std::span(data + 1, size - 1));
  if (data[0] % 2 == 0)
    node_record(bytes);
  else
    intervals(bytes);
  return 0;
}
