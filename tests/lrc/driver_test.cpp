// The operations' driver (lrc/driver.hpp) over a loopback transport: several nodes in one process,
// each with its own history, directory and memory (as a real run's), every exchange answered at
// once by the node it goes to, and logged. The sequences are the driver's: what is fetched after
// what, how a diff fetch is grouped, when a lock is granted, what a release hands over.
#include "lrc/driver.hpp"

#include <gtest/gtest.h>

#include <fmt/format.h>

#include <memory>
#include <string>
#include <vector>

#include "tests/lrc/test_memory.hpp"

namespace ncp2::lrc {
namespace {

using testing::kPage;
constexpr std::uint32_t kPages = 2;
using Memory = testing::Memory<kPages>;

struct Cluster;

// One node, its driver, and the transport that carries its exchanges to the others.
struct LoopNode final : Transport {
  LoopNode(Cluster& cluster, int id, const ProtocolConfig& config);
  Cluster& cluster;
  History history;
  PageDirectory directory;
  Memory memory;
  std::unique_ptr<Node> node;
  Driver driver;
  Operation op = Operation::None;
  NoCosts no_costs;

  [[nodiscard]] Operation operation() const override { return op; }
  void set_operation(Operation o) override { op = o; }
  void charge(Entry /*entry*/) override {}
  void synchronizing(Operation /*op*/, std::uint64_t /*object*/, bool /*after*/) override {}
  CostSink& costs() override { return no_costs; }
  void fetch_page(PageId page, NodeId home) override;
  void fetch_diffs(PageId page, std::span<const DiffRequest> requests) override;
  void request_lock(LockId lock, const AcquireStep& step) override;
  void grant_lock(LockId lock, const LockWaiter& next) override;
  BarrierOutcome exchange_at_barrier(BarrierId /*barrier*/, std::size_t /*usage*/) override {
    ADD_FAILURE() << "no barrier in these tests";
    return {};
  }

  void write(std::size_t offset, std::uint8_t value) {
    driver.access(PageId{static_cast<std::uint32_t>(offset / kPage)}, Access::Write);
    memory.bytes[offset] = std::byte{value};
  }
  // A critical section that writes one byte.
  void write_under(LockId lock, std::size_t offset, std::uint8_t value) {
    driver.lock_acquire(lock, 0);
    write(offset, value);
    driver.lock_release(lock);
  }
  std::uint8_t read(std::size_t offset) {
    driver.access(PageId{static_cast<std::uint32_t>(offset / kPage)}, Access::Read);
    return std::to_integer<std::uint8_t>(memory.bytes[offset]);
  }
};

struct Cluster {
  explicit Cluster(int n, FirstTouch touch = FirstTouch::FromHome) {
    config.nodes = n;
    config.page_size = kPage;
    config.first_touch = touch;
    for (int i = 0; i < n; ++i) nodes.push_back(std::make_unique<LoopNode>(*this, i, config));
  }
  LoopNode& at(NodeId id) { return *nodes.at(static_cast<std::size_t>(index(id))); }
  ProtocolConfig config;
  std::vector<std::unique_ptr<LoopNode>> nodes;
  std::vector<std::string> log;
};

LoopNode::LoopNode(Cluster& c, int id, const ProtocolConfig& config)
    : cluster(c),
      history(static_cast<std::size_t>(config.nodes)),
      node([&] {
        directory.add_region(kPages, kAllocatingHome);
        auto n = std::make_unique<Node>(node_id(id), config, history, directory, memory);
        n->add_region(0);
        return n;
      }()),
      driver(*node, *this) {}

void LoopNode::fetch_page(PageId page, NodeId home) {
  cluster.log.push_back(
      fmt::format("node {} fetches page {} from {}", index(node->id()), raw(page), index(home)));
  const auto bytes = cluster.at(home).node->serve_page(page);
  node->install_page(page, std::vector<std::byte>(bytes.begin(), bytes.end()));
}

void LoopNode::fetch_diffs(PageId page, std::span<const DiffRequest> requests) {
  std::string line = fmt::format("node {} fetches diffs of page {}:", index(node->id()), raw(page));
  for (const DiffRequest& r : requests) {
    line += fmt::format(" {}{}", index(r.writer), fmt::format("[{}]", fmt::join(r.intervals, ",")));
    LoopNode& writer = cluster.at(r.writer);
    std::vector<std::byte> reply;
    encode_diff_reply(*writer.node, page, std::as_bytes(r.intervals), writer.no_costs, reply);
    take_diff_reply(*node, r.writer, reply, no_costs);
  }
  node->apply_received(page);
  cluster.log.push_back(line);
}

void LoopNode::request_lock(LockId lock, const AcquireStep& step) {
  const LockWaiter me{node->id(), node->vt()};
  NodeId at = step.to;
  bool forwarded = step.forward;
  for (;;) {
    LoopNode& there = cluster.at(at);
    const LockAnswer a = there.node->lock_request(lock, me, forwarded, there.no_costs);
    if (a.kind == LockAnswer::Kind::Forward) {
      at = a.to;
      forwarded = true;
      continue;
    }
    ASSERT_EQ(a.kind, LockAnswer::Kind::Grant) << "a loopback acquire never waits: its holder released";
    cluster.log.push_back(
        fmt::format("node {} granted lock {} by {}", index(node->id()), raw(lock), index(at)));
    there.history.for_each_between(me.known, there.node->vt(),
                                   [&](const IntervalRecord& r) { history.add(r); });
    node->granted(lock, there.node->vt(), no_costs);
    return;
  }
}

void LoopNode::grant_lock(LockId lock, const LockWaiter& next) {
  cluster.log.push_back(fmt::format("node {} hands lock {} to {} at its release", index(node->id()),
                                    raw(lock), index(next.node)));
}

TEST(LrcDriver, AFaultFetchesThePageThenItsDiffsThenWrites) {
  Cluster c(2);
  LoopNode& n0 = *c.nodes[0];
  LoopNode& n1 = *c.nodes[1];
  n0.driver.lock_acquire(LockId{0}, 0);  // node 0 manages lock 0 and holds its token: no message
  n0.write(8, 42);
  n0.driver.lock_release(LockId{0});
  n1.driver.lock_acquire(LockId{0}, 0);
  // Node 1 never held the page: the home's copy, then the writer's diff of what it learned.
  EXPECT_EQ(n1.read(8), 42);
  n1.write(9, 7);
  const std::vector<std::string> expected = {
      "node 1 granted lock 0 by 0",
      "node 1 fetches page 0 from 0",
      "node 1 fetches diffs of page 0: 0[1]",
  };
  EXPECT_EQ(c.log, expected);
  EXPECT_EQ(n1.node->access(PageId{0}), Access::Write);
  EXPECT_EQ(n1.node->counters().page_faults, 1U);
  EXPECT_EQ(n1.node->counters().diff_requests, 1U);
}

TEST(LrcDriver, ADiffFetchAsksEachWriterOnceInNodeOrder) {
  Cluster c(3, FirstTouch::ZeroEverywhere);
  LoopNode& n0 = *c.nodes[0];
  LoopNode& n1 = *c.nodes[1];
  LoopNode& n2 = *c.nodes[2];
  // Node 1 writes the page in two intervals: under lock 1 (its own), and under lock 2, whose
  // acquire from node 2 ends the first; node 0 writes it once (lock 0). Node 2 then acquires
  // locks 0 and 1 (the request for lock 1 ends node 1's second interval) and reads.
  n1.write_under(LockId{1}, 101, 1);
  n1.write_under(LockId{2}, 102, 2);
  n0.write_under(LockId{0}, 10, 3);
  c.log.clear();
  n2.driver.lock_acquire(LockId{0}, 0);
  n2.driver.lock_acquire(LockId{1}, 0);
  EXPECT_EQ(n2.read(10), 3);
  EXPECT_EQ(n2.read(101), 1);
  EXPECT_EQ(n2.read(102), 2);
  ASSERT_EQ(c.log.size(), 3U);
  EXPECT_EQ(c.log[2], "node 2 fetches diffs of page 0: 0[1] 1[1,2]");
}

TEST(LrcDriver, AnIntervalEndsWhenTheLockChangesHandsNotAtEachRelease) {
  Cluster c(2);
  LoopNode& n0 = *c.nodes[0];
  LoopNode& n1 = *c.nodes[1];
  // Node 0 polls lock 0 (its own) a hundred times and writes a count each time: all local, one
  // interval still open.
  for (int k = 1; k <= 100; ++k) {
    n0.write_under(LockId{0}, 5, static_cast<std::uint8_t>(k));
  }
  EXPECT_EQ(n0.node->counters().intervals, 0U);
  EXPECT_EQ(n0.node->counters().local_lock_acquires, 100U);
  EXPECT_EQ(n0.node->counters().twins, 1U);  // one write fault, however many polls
  // Node 1 asks: the open interval ends as the lock leaves, and the grant brings one write notice.
  n1.driver.lock_acquire(LockId{0}, 0);
  EXPECT_EQ(n0.node->counters().intervals, 1U);
  EXPECT_EQ(n1.node->counters().write_notices, 1U);
  EXPECT_EQ(n1.read(5), 100);
}

TEST(LrcDriver, AWriteAfterTheLockLeftLandsInTheNextInterval) {
  Cluster c(3, FirstTouch::ZeroEverywhere);  // node 1 holds a copy: it fetches diffs only
  LoopNode& n0 = *c.nodes[0];
  LoopNode& n1 = *c.nodes[1];
  n0.write_under(LockId{0}, 5, 1);
  // The lock leaves while node 0 runs on: its page stays writable, the diff is of a snapshot.
  n1.driver.lock_acquire(LockId{0}, 0);
  EXPECT_EQ(n0.node->access(PageId{0}), Access::Write);
  n0.write(6, 2);  // no fault: the snapshot is the next interval's twin
  EXPECT_EQ(n0.node->counters().twins, 2U);
  EXPECT_EQ(n1.read(5), 1);
  EXPECT_EQ(n1.read(6), 0);  // written after the snapshot
  n1.driver.lock_release(LockId{0});
  // Node 0's own acquire ends the next interval (synchronously): the write goes with it.
  n0.driver.lock_acquire(LockId{0}, 0);
  EXPECT_EQ(n0.node->counters().intervals, 2U);
  EXPECT_EQ(n0.node->access(PageId{0}), Access::Read);
  n0.driver.lock_release(LockId{0});
  n1.driver.lock_acquire(LockId{0}, 0);
  EXPECT_EQ(n1.read(6), 2);
}

TEST(LrcDriver, APageLeftUnchangedAfterTheSnapshotGetsNoWriteNotice) {
  Cluster c(3);
  LoopNode& n0 = *c.nodes[0];
  LoopNode& n1 = *c.nodes[1];
  n0.write_under(LockId{0}, 5, 1);
  n1.driver.lock_acquire(LockId{0}, 0);
  EXPECT_EQ(n0.node->counters().intervals, 1U);
  // Node 0 does not write the page again; its next close has nothing to tell.
  n0.driver.lock_acquire(LockId{1}, 0);  // lock 1's manager is node 1: not local
  EXPECT_EQ(n0.node->counters().intervals, 1U);
  EXPECT_EQ(n0.node->access(PageId{0}), Access::Read);
  // A write now takes the page as its last diff left it for a twin, and is not lost.
  n0.write(7, 9);
  n0.driver.lock_release(LockId{1});
  n1.driver.lock_release(LockId{0});
  n1.driver.lock_acquire(LockId{1}, 0);
  EXPECT_EQ(n1.read(7), 9);
  EXPECT_EQ(n1.read(5), 1);
}

TEST(LrcDriver, ARequestedLockGoesToTheRequesterAtTheNextRelease) {
  Cluster c(2);
  LoopNode& n0 = *c.nodes[0];
  LoopNode& n1 = *c.nodes[1];
  n0.driver.lock_acquire(LockId{0}, 0);
  // Node 1's request reaches node 0 while it holds the lock: queued.
  EXPECT_EQ(n0.node->lock_request(LockId{0}, {node_id(1), n1.node->vt()}, false, n0.no_costs).kind,
            LockAnswer::Kind::Queue);
  n0.driver.lock_release(LockId{0});
  ASSERT_EQ(c.log.size(), 1U);
  EXPECT_EQ(c.log[0], "node 0 hands lock 0 to 1 at its release");
  // The token went with it: node 0 cannot take the lock back without asking.
  const AcquireStep again = n0.node->acquire(LockId{0}, 0, n0.no_costs);
  EXPECT_FALSE(again.local);
}

TEST(LrcDriver, MisuseIsTheCoresErrorBeforeAnyExchange) {
  Cluster c(2);
  EXPECT_THROW(c.nodes[1]->driver.lock_release(LockId{0}), ProtocolError);
  EXPECT_THROW(c.nodes[1]->driver.lock_acquire(LockId{kMaxLocks}, 0), ProtocolError);
  EXPECT_TRUE(c.log.empty());
}

TEST(LrcDriver, TheDiffReplyEncodingRefusesATruncatedReply) {
  Cluster c(2, FirstTouch::ZeroEverywhere);
  const std::vector<std::byte> truncated = {std::byte{1}, std::byte{0}, std::byte{0}, std::byte{0},
                                            std::byte{9}, std::byte{0}, std::byte{0}, std::byte{0}};
  EXPECT_THROW(take_diff_reply(*c.nodes[0]->node, node_id(1), truncated, c.nodes[0]->no_costs),
               std::runtime_error);
}

TEST(LrcProtocolArgument, RoundTripsAndNamesWhatItRefuses) {
  ProtocolConfig c;
  c.page_size = 8192;
  c.word_size = 8;
  c.gc_threshold_bytes = 12345;
  c.barrier_manager = node_id(3);
  c.first_touch = FirstTouch::ZeroEverywhere;
  c.gc_copies = GcCopies::ValidateAll;
  const ProtocolConfig back = parse_protocol_argument(protocol_argument(c));
  EXPECT_EQ(back.page_size, 8192U);
  EXPECT_EQ(back.word_size, 8);
  EXPECT_EQ(back.gc_threshold_bytes, 12345U);
  EXPECT_EQ(back.barrier_manager, node_id(3));
  EXPECT_EQ(back.first_touch, FirstTouch::ZeroEverywhere);
  EXPECT_EQ(back.gc_copies, GcCopies::ValidateAll);
  const auto refused = [](std::string_view text) {
    try {
      parse_protocol_argument(text);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_EQ(refused("colour=blue"), "protocol: no key 'colour'");
  EXPECT_EQ(refused("page_size=12x"), "protocol: page_size=12x is not a number from 0 to 1073741824");
  EXPECT_EQ(refused("first_touch=nowhere"), "protocol: first_touch=nowhere is not home or zero");
  EXPECT_EQ(refused("page_size=4096,word_size=3"),
            "protocol: a page of 4096 bytes is not made of 3-byte words");
  EXPECT_EQ(refused("word_size"), "protocol: 'word_size' is not key=value");
}

TEST(LrcVectorTime, MergeTakesTheLaterOfEachEntry) {
  VectorTime a{1, 5, 0};
  merge(a, {3, 2, 0});
  EXPECT_EQ(a, (VectorTime{3, 5, 0}));
}

}  // namespace
}  // namespace ncp2::lrc
