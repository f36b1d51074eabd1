// The real runtime's protocol state (real_machine/lrc_node.hpp), several nodes in one process:
// intervals and write notices, multiple writers of one page, diffs applied in happens-before
// order, what a lock grant or a barrier must carry.
#include "real_machine/lrc_node.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

namespace ncp2::real {
namespace {

constexpr std::size_t kPage = 4096;
constexpr std::size_t kPages = 4;

struct Node {
  explicit Node(std::uint32_t id, std::uint32_t nodes)
      : memory(kPage * kPages), lrc(id, nodes, memory, kPage) {}
  std::vector<std::byte> memory;
  LrcNode lrc;
  void write(std::size_t offset, std::uint8_t value) {
    const auto page = static_cast<std::uint32_t>(offset / kPage);
    ASSERT_TRUE(lrc.valid(page));
    if (lrc.access(page) != PageAccess::ReadWrite) lrc.write_fault(page);
    memory[offset] = std::byte{value};
  }
  [[nodiscard]] std::uint8_t read(std::size_t offset) const {
    return std::to_integer<std::uint8_t>(memory[offset]);
  }
};

// What `to` needs from `from`, as a lock grant or a barrier would carry it.
std::vector<IntervalRecord> carried(const Node& from, const Node& to) {
  std::vector<IntervalRecord> out;
  for (const IntervalRecord* r : from.lrc.unseen_by(to.lrc.vector_time())) out.push_back(*r);
  return out;
}

// `to` fetches page `page` from the creators' nodes.
void fetch(Node& to, std::uint32_t page, const std::vector<Node*>& all) {
  std::vector<ReceivedDiff> diffs;
  for (const DiffNeed& need : to.lrc.missing_diffs(page))
    for (std::uint32_t seq : need.seqs) {
      const auto d = all.at(need.creator)->lrc.diff(page, seq);
      diffs.push_back({need.creator, seq, std::vector<std::byte>(d.begin(), d.end())});
    }
  to.lrc.apply_diffs(page, std::move(diffs));
}

TEST(LrcNode, EveryPageStartsValidAndReadOnly) {
  Node a(0, 2);
  for (std::uint32_t p = 0; p < kPages; ++p) {
    EXPECT_TRUE(a.lrc.valid(p));
    EXPECT_EQ(a.lrc.access(p), PageAccess::Read);
  }
  EXPECT_TRUE(a.lrc.take_access_changes().empty());
}

TEST(LrcNode, AnIntervalWithoutChangesIsNotMade) {
  Node a(0, 2);
  EXPECT_FALSE(a.lrc.close_interval());
  a.lrc.write_fault(1);  // written back with the same bytes
  EXPECT_FALSE(a.lrc.close_interval());
  EXPECT_EQ(a.lrc.vector_time(), (VectorTime{0, 0}));
  EXPECT_EQ(a.lrc.access(1), PageAccess::Read);
}

TEST(LrcNode, WriteNoticesInvalidateAndDiffsBringTheWrites) {
  Node a(0, 2);
  Node b(1, 2);
  std::vector<Node*> all{&a, &b};
  a.write(10, 7);
  a.write(kPage + 5, 9);
  ASSERT_TRUE(a.lrc.close_interval());
  EXPECT_EQ(a.lrc.vector_time(), (VectorTime{1, 0}));
  EXPECT_EQ(a.lrc.access(0), PageAccess::Read);  // write-protected again for the next interval
  b.lrc.incorporate(carried(a, b));
  EXPECT_EQ(b.lrc.vector_time(), (VectorTime{1, 0}));
  EXPECT_FALSE(b.lrc.valid(0));
  EXPECT_FALSE(b.lrc.valid(1));
  EXPECT_TRUE(b.lrc.valid(2));
  EXPECT_EQ(b.lrc.take_access_changes(), (std::vector<std::uint32_t>{0, 1}));
  EXPECT_EQ(b.lrc.access(0), PageAccess::None);
  const auto needs = b.lrc.missing_diffs(0);
  ASSERT_EQ(needs.size(), 1U);
  EXPECT_EQ(needs[0].creator, 0U);
  EXPECT_EQ(needs[0].seqs, (std::vector<std::uint32_t>{1}));
  fetch(b, 0, all);
  EXPECT_TRUE(b.lrc.valid(0));
  EXPECT_EQ(b.read(10), 7);
  EXPECT_EQ(b.read(kPage + 5), 0);  // page 1 not fetched yet
  fetch(b, 1, all);
  EXPECT_EQ(b.read(kPage + 5), 9);
  EXPECT_TRUE(carried(a, b).empty());  // b has seen everything a made
}

TEST(LrcNode, ConcurrentWritersOfOnePageKeepTheirBytes) {
  Node a(0, 3);
  Node b(1, 3);
  Node c(2, 3);
  std::vector<Node*> all{&a, &b, &c};
  a.write(100, 1);
  b.write(101, 2);  // the same word, another byte
  ASSERT_TRUE(a.lrc.close_interval());
  ASSERT_TRUE(b.lrc.close_interval());
  c.lrc.incorporate(carried(a, c));
  c.lrc.incorporate(carried(b, c));
  const auto needs = c.lrc.missing_diffs(0);
  EXPECT_EQ(needs.size(), 2U);
  fetch(c, 0, all);
  EXPECT_EQ(c.read(100), 1);
  EXPECT_EQ(c.read(101), 2);
}

TEST(LrcNode, SameByteWritesOrderedBySynchronizationApplyInThatOrder) {
  Node a(0, 3);
  Node b(1, 3);
  Node c(2, 3);
  std::vector<Node*> all{&a, &b, &c};
  a.write(64, 1);
  ASSERT_TRUE(a.lrc.close_interval());  // a releases a lock ...
  b.lrc.incorporate(carried(a, b));     // ... b acquires it
  fetch(b, 0, all);
  b.write(64, 2);
  ASSERT_TRUE(b.lrc.close_interval());
  // c learns of b's interval first (from b), then of a's (from a): the order must still be a, b.
  c.lrc.incorporate(carried(b, c));
  c.lrc.incorporate(carried(a, c));
  fetch(c, 0, all);
  EXPECT_EQ(c.read(64), 2);
}

TEST(LrcNode, OwnIntervalsAfterTheLastReport) {
  Node a(0, 2);
  a.write(0, 1);
  ASSERT_TRUE(a.lrc.close_interval());
  a.write(1, 1);
  ASSERT_TRUE(a.lrc.close_interval());
  EXPECT_EQ(a.lrc.own_after(0).size(), 2U);
  ASSERT_EQ(a.lrc.own_after(1).size(), 1U);
  EXPECT_EQ(a.lrc.own_after(1)[0]->seq, 2U);
  EXPECT_TRUE(a.lrc.own_after(2).empty());
}

TEST(LrcNode, IntervalsSurviveTheWire) {
  Node a(0, 2);
  a.write(3, 4);
  a.write(2 * kPage, 4);
  ASSERT_TRUE(a.lrc.close_interval());
  WireWriter w;
  const auto unseen = a.lrc.unseen_by({0, 0});
  write_intervals(w, unseen);
  const auto bytes = std::move(w).take();
  WireReader r(bytes);
  const auto back = read_intervals(r);
  EXPECT_TRUE(r.done());
  ASSERT_EQ(back.size(), 1U);
  EXPECT_EQ(back[0].creator, 0U);
  EXPECT_EQ(back[0].seq, 1U);
  EXPECT_EQ(back[0].vt, (VectorTime{1, 0}));
  EXPECT_EQ(back[0].pages, (std::vector<std::uint32_t>{0, 2}));
}

TEST(LrcNode, GarbageCollectionKeepsTheDataAndTheNumbering) {
  Node a(0, 2);
  Node b(1, 2);
  std::vector<Node*> all{&a, &b};
  a.write(8, 3);
  ASSERT_TRUE(a.lrc.close_interval());
  b.lrc.incorporate(carried(a, b));
  EXPECT_THROW(b.lrc.discard_history(), std::logic_error);  // page 0 is still invalid on b
  for (std::uint32_t page : b.lrc.invalid_pages()) fetch(b, page, all);
  a.lrc.discard_history();
  b.lrc.discard_history();
  EXPECT_EQ(a.lrc.diff_bytes(), 0U);
  EXPECT_TRUE(a.lrc.diff(0, 1).empty());
  EXPECT_EQ(b.read(8), 3);
  // Numbering goes on after the collection: a's next interval is its second.
  a.write(9, 4);
  ASSERT_TRUE(a.lrc.close_interval());
  EXPECT_EQ(a.lrc.vector_time(), (VectorTime{2, 0}));
  const auto next = carried(a, b);
  ASSERT_EQ(next.size(), 1U);
  EXPECT_EQ(next[0].seq, 2U);
  b.lrc.incorporate(next);
  fetch(b, 0, all);
  EXPECT_EQ(b.read(9), 4);
  EXPECT_THROW((void)a.lrc.unseen_by({0, 0}), std::logic_error);  // asking for what was collected
}

TEST(LrcNode, MalformedInputIsRefused) {
  Node a(0, 2);
  const std::vector<std::byte> short_message(3);
  WireReader r(short_message);
  EXPECT_THROW((void)r.u64(), std::runtime_error);
  EXPECT_THROW((void)a.lrc.unseen_by({0, 0, 0}), std::runtime_error);
  IntervalRecord foreign{5, 1, {1, 0}, {0}};
  EXPECT_THROW(a.lrc.incorporate(std::span(&foreign, 1)), std::runtime_error);
  IntervalRecord gap{1, 2, {0, 2}, {0}};  // interval 2 of node 1 before its interval 1
  EXPECT_THROW(a.lrc.incorporate(std::span(&gap, 1)), std::logic_error);
  IntervalRecord outside{1, 1, {0, 1}, {kPages}};
  EXPECT_THROW(a.lrc.incorporate(std::span(&outside, 1)), std::runtime_error);
}

}  // namespace
}  // namespace ncp2::real
