// Fuzz target: what a node of a real run reads from the others (real_machine/wire.hpp): a node's
// record (node 0 gathers them) and interval records with their write notices (lock grants and
// barrier releases), taken in by the protocol core. A malformed message must end in
// std::runtime_error or std::logic_error (the agent turns either into a failed run with the
// message), never a crash; a record that decodes must encode back to the same bytes it decodes from.
#include <cstddef>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <vector>

#include "fuzz/fuzz_check.hpp"
#include "lrc/node.hpp"
#include "real_machine/node_record.hpp"
#include "real_machine/wire.hpp"

namespace {

using namespace ncp2;

void node_record(std::span<const std::byte> bytes) {
  real::NodeRecord record;
  try {
    record = real::NodeRecord::decode(bytes);
  } catch (const std::runtime_error&) {
    return;
  }
  const std::vector<std::byte> encoded = record.encode();
  const real::NodeRecord again = real::NodeRecord::decode(encoded);
  fuzz::check(again.encode() == encoded, "a decoded node record does not encode back the same");
}

class Heap final : public lrc::PageMemory {
 public:
  std::span<std::byte> page(lrc::PageId page) override {
    return std::span(bytes_).subspan(std::size_t{lrc::raw(page)} * 4096, 4096);
  }

 private:
  std::vector<std::byte> bytes_ = std::vector<std::byte>(std::size_t{4} * 4096);
};

// Intervals taken in by node 1 of 3 with 4 pages (what a grant or a release does).
void intervals(std::span<const std::byte> bytes) {
  lrc::ProtocolConfig config;
  config.nodes = 3;
  lrc::History history(3);
  lrc::PageDirectory directory;
  directory.add_region(4, lrc::node_id(0));
  Heap heap;
  lrc::Node node(lrc::node_id(1), config, history, directory, heap);
  node.add_region(0);
  lrc::NoCosts costs;
  try {
    real::WireReader r(bytes);
    lrc::VectorTime learned = node.vt();
    for (lrc::IntervalRecord& rec : real::read_records(r, directory.pages())) {
      const auto q = static_cast<std::size_t>(lrc::index(rec.creator));
      const std::uint32_t seq = rec.seq;
      history.add(std::move(rec));
      if (q < learned.size()) learned[q] = std::max(learned[q], seq);
    }
    node.incorporate(learned, costs);
  } catch (const std::runtime_error&) {
    return;
  } catch (const std::logic_error&) {
    return;
  }
  for (std::uint32_t page = 0; page < directory.pages(); ++page)
    for (const lrc::Notice& n : node.plan_diff_fetch(lrc::PageId{page}))
      fuzz::check(n.writer != lrc::node_id(1), "a node needs its own diff");
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
