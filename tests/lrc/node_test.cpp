// The protocol core without a transport: several nodes in one process, each with its own history
// and directory (as a real run's), messages carried by hand. Intervals and write notices, first
// touch, multiple writers of one page, diffs applied in happens-before order, the lock queue, the
// barrier manager and both garbage-collection policies.
#include "lrc/node.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <vector>

#include "lrc/barrier_manager.hpp"
#include "tests/lrc/test_memory.hpp"

namespace ncp2::lrc {
namespace {

using testing::kPage;
constexpr std::uint32_t kPages = 4;
using Memory = testing::Memory<kPages>;

// One node of a "real run": its own history, directory and memory.
struct TestNode {
  TestNode(int id, const ProtocolConfig& config) : history(static_cast<std::size_t>(config.nodes)) {
    directory.add_region(kPages, node_id(0));
    node = std::make_unique<Node>(node_id(id), config, history, directory, memory);
    node->add_region(0);
  }
  History history;
  PageDirectory directory;
  Memory memory;
  std::unique_ptr<Node> node;
  NoCosts costs;

  void write(std::size_t offset, std::uint8_t value) {
    const PageId page{static_cast<std::uint32_t>(offset / kPage)};
    ASSERT_NE(node->access(page), Access::None) << "fetch it first";
    if (node->access(page) != Access::Write) node->begin_write(page, costs);
    memory.bytes[offset] = std::byte{value};
  }
  [[nodiscard]] std::uint8_t read(std::size_t offset) const {
    return std::to_integer<std::uint8_t>(memory.bytes[offset]);
  }
};

ProtocolConfig config_of(int nodes, FirstTouch touch = FirstTouch::ZeroEverywhere) {
  ProtocolConfig c;
  c.nodes = nodes;
  c.page_size = kPage;
  c.first_touch = touch;
  return c;
}

// `to` learns what `from` knows (as a lock grant carries it: the records, then the vector time).
void carry(const TestNode& from, TestNode& to) {
  from.history.for_each_between(to.node->vt(), from.node->vt(),
                                [&](const IntervalRecord& r) { to.history.add(r); });
  to.node->incorporate(from.node->vt(), to.costs);
}

// `to` brings page `page` up to date from the writers' nodes.
void fetch(TestNode& to, PageId page, const std::vector<TestNode*>& all) {
  to.node->begin_fault(page);
  if (!to.node->holds(page)) {
    TestNode& home = *all.at(static_cast<std::size_t>(index(to.node->request_page(page))));
    const auto bytes = home.node->serve_page(page);
    to.node->install_page(page, std::vector<std::byte>(bytes.begin(), bytes.end()));
  }
  for (const Notice& n : to.node->plan_diff_fetch(page)) {
    TestNode& writer = *all.at(static_cast<std::size_t>(index(n.writer)));
    const Diff& d = writer.node->diff_for(page, n.interval, writer.costs);
    const std::vector<std::byte> copy(d.encoded().begin(), d.encoded().end());
    writer.node->diffs_served(page, d.modeled_bytes(), writer.costs);
    to.node->receive_diff(n.writer, n.interval, copy, to.costs);
  }
  to.node->apply_received(page);
  to.node->grant_read(page);
}

TEST(LrcNode, FirstTouchFromHomeGivesNodeZeroEveryPage) {
  const ProtocolConfig c = config_of(2, FirstTouch::FromHome);
  TestNode a(0, c);
  TestNode b(1, c);
  EXPECT_TRUE(a.node->holds(PageId{0}));
  EXPECT_EQ(a.node->access(PageId{0}), Access::Read);
  EXPECT_TRUE(a.node->write_is_local(PageId{0}));
  EXPECT_FALSE(b.node->holds(PageId{0}));
  EXPECT_EQ(b.node->access(PageId{0}), Access::None);
  a.memory.bytes[5] = std::byte{9};
  std::vector<TestNode*> all{&a, &b};
  EXPECT_EQ(b.node->begin_fault(PageId{0}), Operation::PageFault);
  fetch(b, PageId{0}, all);
  EXPECT_EQ(b.read(5), 9);
  EXPECT_EQ(b.node->counters().page_requests, 1U);
  EXPECT_EQ(a.node->counters().pages_served, 1U);
}

TEST(LrcNode, OneNodeWritesFromTheStart) {
  TestNode a(0, config_of(1, FirstTouch::FromHome));
  EXPECT_EQ(a.node->access(PageId{3}), Access::Write);
  EXPECT_FALSE(a.node->close_interval(a.costs));
}

TEST(LrcNode, AnIntervalNoticesEveryPageWrittenEvenUnchanged) {
  // TreadMarks makes a write notice for every page of the dirty list (its diffs are made later).
  TestNode a(0, config_of(2));
  a.write(1, 0);  // written back with the same byte
  EXPECT_TRUE(a.node->close_interval(a.costs));
  EXPECT_EQ(a.node->vt(), (VectorTime{1, 0}));
  EXPECT_EQ(a.node->access(PageId{0}), Access::Read);
  EXPECT_EQ(a.history.record(node_id(0), 1).pages, (std::vector<PageId>{PageId{0}}));
  EXPECT_EQ(a.node->counters().intervals, 1U);
}

TEST(LrcNode, WriteNoticesInvalidateAndDiffsBringTheWrites) {
  const ProtocolConfig c = config_of(2);
  TestNode a(0, c);
  TestNode b(1, c);
  std::vector<TestNode*> all{&a, &b};
  b.node->track_access_changes();
  a.write(10, 7);
  a.write(kPage + 5, 9);
  ASSERT_TRUE(a.node->close_interval(a.costs));
  carry(a, b);
  EXPECT_EQ(b.node->vt(), (VectorTime{1, 0}));
  EXPECT_EQ(b.node->access(PageId{0}), Access::None);
  EXPECT_EQ(b.node->access(PageId{2}), Access::Read);
  std::vector<PageId> changed;
  b.node->take_access_changes(changed);
  EXPECT_EQ(changed, (std::vector<PageId>{PageId{0}, PageId{1}}));
  EXPECT_EQ(b.node->counters().write_notices, 2U);
  fetch(b, PageId{0}, all);
  EXPECT_EQ(b.read(10), 7);
  EXPECT_EQ(b.read(kPage + 5), 0);  // page 1 not fetched yet
  fetch(b, PageId{1}, all);
  EXPECT_EQ(b.read(kPage + 5), 9);
  EXPECT_EQ(b.node->counters().diff_requests, 2U);
  EXPECT_EQ(a.node->counters().diff_replies, 2U);
  EXPECT_EQ(a.node->counters().diffs_created, 2U);  // one per page written
}

// Records the modelled costs the core tells (what the emulator charges).
struct CostLog final : CostSink {
  void write_notices(std::size_t count) override { notices += count; }
  void diff_made(PageId /*page*/, DiffSize size) override {
    ++diffs;
    words += size.words;
  }
  void diff_wanted(PageId /*page*/) override {}
  void twin_made(PageId /*page*/) override { ++twins; }
  void diffs_applied(std::size_t /*words*/) override {}
  void history_discarded() override {}
  std::size_t notices = 0, diffs = 0, words = 0, twins = 0;
};

// What the emulator charges and when, and what counts toward a collection, must not depend on
// when the host makes a diff (lazily in the emulator, at the close in a real run).
void diffs_follow_the_program(bool copy_at_close) {
  ProtocolConfig c = config_of(2);
  c.copy_at_close = copy_at_close;
  TestNode a(0, c);
  CostLog costs;
  a.node->begin_write(PageId{0}, costs);
  a.memory.bytes[10] = std::byte{7};
  ASSERT_TRUE(a.node->close_interval(costs));
  EXPECT_EQ(a.node->counters().diffs_created, 1U);
  EXPECT_EQ(a.node->usage(), 0U);  // not counted yet: TreadMarks has not made it
  EXPECT_EQ(costs.diffs, 0U);
  EXPECT_EQ(costs.notices, 1U);
  // The next write: TreadMarks makes the diff; counted, charged once; the twin is the page as the
  // interval left it.
  a.node->begin_write(PageId{0}, costs);
  EXPECT_EQ(a.node->usage(), 8U + 4);  // one run of one word
  EXPECT_EQ(costs.diffs, 1U);
  EXPECT_EQ(costs.words, 1U);
  EXPECT_EQ(costs.twins, 2U);
  a.memory.bytes[11] = std::byte{8};
  ASSERT_TRUE(a.node->close_interval(costs));
  // Asked for: the first interval's diff holds only its own write and is not charged again; the
  // second is charged now, but counts only at the page's next write or invalidation.
  EXPECT_EQ(a.node->diff_for(PageId{0}, 1, costs).words(), 1U);
  const Diff& second = a.node->diff_for(PageId{0}, 2, costs);
  std::vector<std::byte> page(kPage);
  page[10] = std::byte{7};
  Diff::apply_encoded(second.encoded(), page, 4);
  EXPECT_EQ(page[11], std::byte{8});
  EXPECT_EQ(costs.diffs, 2U);
  EXPECT_EQ(a.node->usage(), 12U);
  EXPECT_EQ(a.node->counters().diffs_created, 2U);
}

TEST(LrcNode, ADiffCountsAtItsPagesNextWriteAndIsChargedWhenTreadMarksMakesIt) {
  diffs_follow_the_program(false);
}

TEST(LrcNode, DiffsMadeWhenTheIntervalClosesCountAndChargeTheSame) { diffs_follow_the_program(true); }

TEST(LrcNode, AnInvalidationCountsTheWritersDiff) {
  const ProtocolConfig c = config_of(2);
  TestNode a(0, c);
  TestNode b(1, c);
  a.write(10, 7);
  b.write(20, 9);
  ASSERT_TRUE(a.node->close_interval(a.costs));
  ASSERT_TRUE(b.node->close_interval(b.costs));
  EXPECT_EQ(a.node->usage(), 0U);
  carry(b, a);  // b's write notice invalidates a's page: a's own diff is made and counted first
  EXPECT_EQ(a.node->usage(), 12U + 8);  // its diff, and one notice
}

// While the PP is charged for a diff, a request for the same diff may be served (a treadmarks
// handler preempts the charge): the diff is made once, and charged once.
struct RequestWhileCharging final : CostSink {
  void write_notices(std::size_t /*count*/) override {}
  void diff_made(PageId page, DiffSize /*size*/) override {
    ++diffs;
    if (node != nullptr && !inside) {
      inside = true;
      (void)node->diff_for(page, 1, *this);
      inside = false;
    }
  }
  void diff_wanted(PageId /*page*/) override {}
  void twin_made(PageId /*page*/) override {}
  void diffs_applied(std::size_t /*words*/) override {}
  void history_discarded() override {}
  Node* node = nullptr;
  bool inside = false;
  int diffs = 0;
};

TEST(LrcNode, ADiffRequestedWhileItIsChargedIsChargedOnce) {
  TestNode a(0, config_of(2));
  RequestWhileCharging costs;
  a.node->begin_write(PageId{0}, costs);
  a.memory.bytes[10] = std::byte{7};
  ASSERT_TRUE(a.node->close_interval(costs));
  costs.node = a.node.get();
  a.node->begin_write(PageId{0}, costs);  // charges interval 1's diff; a request comes meanwhile
  EXPECT_EQ(costs.diffs, 1);
  EXPECT_EQ(a.node->counters().diffs_created, 1U);
}

TEST(LrcNode, ConcurrentWritersOfOnePageKeepTheirBytes) {
  const ProtocolConfig c = config_of(3);
  TestNode a(0, c);
  TestNode b(1, c);
  TestNode d(2, c);
  std::vector<TestNode*> all{&a, &b, &d};
  a.write(100, 1);
  b.write(101, 2);  // the same word, another byte
  ASSERT_TRUE(a.node->close_interval(a.costs));
  ASSERT_TRUE(b.node->close_interval(b.costs));
  carry(a, d);
  carry(b, d);
  fetch(d, PageId{0}, all);
  EXPECT_EQ(d.read(100), 1);
  EXPECT_EQ(d.read(101), 2);
  EXPECT_EQ(d.node->counters().diff_requests, 2U);  // one per writer
}

TEST(LrcNode, SameByteWritesOrderedBySynchronizationApplyInThatOrder) {
  const ProtocolConfig c = config_of(3);
  TestNode a(0, c);
  TestNode b(1, c);
  TestNode d(2, c);
  std::vector<TestNode*> all{&a, &b, &d};
  a.write(64, 1);
  ASSERT_TRUE(a.node->close_interval(a.costs));  // a releases a lock ...
  carry(a, b);                                   // ... b acquires it
  fetch(b, PageId{0}, all);
  b.write(64, 2);
  ASSERT_TRUE(b.node->close_interval(b.costs));
  // d learns of both from b: the order must still be a's, then b's.
  carry(b, d);
  fetch(d, PageId{0}, all);
  EXPECT_EQ(d.read(64), 2);
}

// The home serves a page its open interval writes as its last closed interval left it: b, served
// in the middle of a's interval (word 0 = 0xff), must end with a's final word 0x100 although a's
// diff carries byte 1 only (byte 0 ends as the twin's). Both ways of making diffs.
TEST(LrcNode, APageServedInTheMiddleOfItsHomesIntervalTakesThatIntervalsDiff) {
  for (const bool copy_at_close : {false, true}) {
    ProtocolConfig c = config_of(2, FirstTouch::FromHome);
    c.copy_at_close = copy_at_close;
    TestNode a(0, c);
    TestNode b(1, c);
    std::vector<TestNode*> all{&a, &b};
    a.write(0, 0xff);
    fetch(b, PageId{0}, all);
    EXPECT_EQ(b.read(0), 0) << "served with a write of the open interval";
    a.write(0, 0x00);
    a.write(1, 0x01);
    ASSERT_TRUE(a.node->close_interval(a.costs));
    carry(a, b);
    fetch(b, PageId{0}, all);
    EXPECT_EQ(b.read(0), 0x00) << copy_at_close;
    EXPECT_EQ(b.read(1), 0x01) << copy_at_close;
  }
}

// What a page is served as, interval by interval: the twin while the open interval writes it, the
// page itself once the interval closed, the snapshot of a close while running (the page carried
// into the next interval and written on there without a fault).
TEST(LrcNode, AServedPageIsThePageAsTheLastClosedIntervalLeftIt) {
  for (const bool copy_at_close : {false, true}) {
    ProtocolConfig c = config_of(2, FirstTouch::FromHome);
    c.copy_at_close = copy_at_close;
    TestNode a(0, c);
    const auto served = [&a](std::size_t offset) {
      return std::to_integer<std::uint8_t>(a.node->serve_page(PageId{0})[offset]);
    };
    a.write(0, 0xff);
    EXPECT_EQ(served(0), 0) << copy_at_close;
    ASSERT_TRUE(a.node->close_interval(a.costs));
    EXPECT_EQ(served(0), 0xff) << copy_at_close;
    a.write(0, 0x11);
    EXPECT_EQ(served(0), 0xff) << copy_at_close;
    ASSERT_TRUE(a.node->close_interval_running(a.costs));
    EXPECT_EQ(served(0), 0x11) << copy_at_close;
    ASSERT_EQ(a.node->access(PageId{0}), Access::Write);
    a.memory.bytes[0] = std::byte{0x22};
    a.memory.bytes[1] = std::byte{0x33};
    EXPECT_EQ(served(0), 0x11) << copy_at_close;
    EXPECT_EQ(served(1), 0) << copy_at_close;
    ASSERT_TRUE(a.node->close_interval(a.costs));
    EXPECT_EQ(served(0), 0x22) << copy_at_close;
    EXPECT_EQ(served(1), 0x33) << copy_at_close;
    EXPECT_EQ(a.node->counters().pages_served, 8U);
  }
}

TEST(LrcNode, LocksQueueAtTheLastRequesterAndGrantAtRelease) {
  const ProtocolConfig c = config_of(3);
  TestNode n0(0, c);
  TestNode n1(1, c);
  TestNode n2(2, c);
  const LockId lock{3};  // manager: 3 mod 3 = node 0, which holds its token
  n1.node->check_acquire(lock);
  const AcquireStep s1 = n1.node->acquire(lock, 11, n1.costs);
  EXPECT_FALSE(s1.local);
  EXPECT_EQ(s1.to, node_id(0));
  EXPECT_FALSE(s1.forward);
  // The manager is the last requester: it answers as holder, and grants at once.
  const LockAnswer a1 = n0.node->lock_request(lock, {node_id(1), n1.node->vt()}, false, n0.costs);
  EXPECT_EQ(a1.kind, LockAnswer::Kind::Grant);
  EXPECT_EQ(a1.to, node_id(1));
  n1.node->granted(lock, n0.node->vt(), n1.costs);
  EXPECT_TRUE(n1.node->lock_held(lock));
  EXPECT_EQ(n1.node->lock_site(lock), 11U);
  EXPECT_THROW(n1.node->check_acquire(lock), ProtocolError);
  // Node 2 asks: forwarded to node 1, which queues it until its release.
  const AcquireStep s2 = n2.node->acquire(lock, 0, n2.costs);
  EXPECT_EQ(s2.to, node_id(0));
  const LockAnswer a2 = n0.node->lock_request(lock, {node_id(2), n2.node->vt()}, false, n0.costs);
  EXPECT_EQ(a2.kind, LockAnswer::Kind::Forward);
  EXPECT_EQ(a2.to, node_id(1));
  const VectorTime asked_with = n2.node->vt();
  EXPECT_EQ(n1.node->lock_request(lock, {node_id(2), asked_with}, true, n1.costs).kind,
            LockAnswer::Kind::Queue);
  const std::optional<LockWaiter> next = n1.node->release(lock, n1.costs);
  ASSERT_TRUE(next.has_value());
  EXPECT_EQ(next->node, node_id(2));
  EXPECT_EQ(next->known, asked_with);  // the grant brings what it lacked since
  EXPECT_THROW(n1.node->check_release(lock), ProtocolError);
  n2.node->granted(lock, n1.node->vt(), n2.costs);
  // Node 2 was the last holder: it re-acquires without messages.
  n2.node->release(lock, n2.costs);
  EXPECT_TRUE(n2.node->acquire(lock, 0, n2.costs).local);
  EXPECT_EQ(n2.node->counters().local_lock_acquires, 1U);
  EXPECT_EQ(n0.node->counters().lock_forwards, 1U);
  EXPECT_EQ(n1.node->counters().lock_grants, 1U);
}

TEST(LrcNode, TheManagerAsksItsLastRequesterItself) {
  const ProtocolConfig c = config_of(2);
  TestNode n0(0, c);
  TestNode n1(1, c);
  const LockId lock{0};
  EXPECT_EQ(n0.node->lock_request(lock, {node_id(1), n1.node->vt()}, false, n0.costs).kind,
            LockAnswer::Kind::Grant);
  const AcquireStep step = n0.node->acquire(lock, 0, n0.costs);
  EXPECT_TRUE(step.forward);
  EXPECT_EQ(step.to, node_id(1));
}

TEST(LrcNode, TheBarrierManagerReleasesWithWhatEachLacks) {
  const ProtocolConfig c = config_of(3);
  BarrierManager m(c);
  EXPECT_FALSE(m.arrive(node_id(1), BarrierId{4}, {0, 2, 0}, 10));
  EXPECT_THROW(m.arrive(node_id(2), BarrierId{5}, {0, 0, 1}, 10), ProtocolError);
  EXPECT_FALSE(m.arrive(node_id(2), BarrierId{4}, {0, 0, 1}, 10));
  EXPECT_TRUE(m.arrive(node_id(0), BarrierId{4}, {1, 0, 0}, 10));
  std::vector<VectorTime> known(3);
  const BarrierManager::Release r = m.release([&](NodeId j, const VectorTime& k, const VectorTime& merged) {
    known[static_cast<std::size_t>(index(j))] = k;
    EXPECT_EQ(merged, (VectorTime{1, 2, 1}));
  });
  EXPECT_EQ(r.merged, (VectorTime{1, 2, 1}));
  EXPECT_EQ(r.last, node_id(0));
  EXPECT_FALSE(r.collect);
  EXPECT_EQ(known[1], (VectorTime{0, 2, 0}));
  EXPECT_EQ(m.episodes(), 1U);
  EXPECT_EQ(m.arrived(), 0);
}

TEST(LrcNode, AProgramBarrierCollectsOverTheThreshold) {
  ProtocolConfig c = config_of(2);
  c.gc_threshold_bytes = 100;
  BarrierManager m(c);
  const auto none = [](NodeId, const VectorTime&, const VectorTime&) {};
  EXPECT_FALSE(m.arrive(node_id(0), BarrierId{1}, {0, 0}, 1000));
  EXPECT_TRUE(m.arrive(node_id(1), BarrierId{1}, {0, 0}, 0));
  EXPECT_TRUE(m.release(none).collect);
  EXPECT_FALSE(m.arrive(node_id(0), BarrierId{2}, {0, 0}, 100));  // not over it
  EXPECT_TRUE(m.arrive(node_id(1), BarrierId{2}, {0, 0}, 0));
  EXPECT_FALSE(m.release(none).collect);
  // Never at the protocol's own barriers (a collection's second one, the exit).
  EXPECT_FALSE(m.arrive(node_id(0), BarrierId{kGcBarrier}, {0, 0}, 1000));
  EXPECT_TRUE(m.arrive(node_id(1), BarrierId{kGcBarrier}, {0, 0}, 1000));
  EXPECT_FALSE(m.release(none).collect);
}

// A collection: a page written by node 1 after node 0, read by node 2 (stale at the collection).
struct Collection {
  explicit Collection(GcCopies copies) {
    ProtocolConfig c = config_of(3);
    c.gc_copies = copies;
    config = c;
    for (int i = 0; i < 3; ++i) nodes.push_back(std::make_unique<TestNode>(i, config));
    for (auto& n : nodes) all.push_back(n.get());
    TestNode& a = *nodes[0];
    TestNode& b = *nodes[1];
    a.write(8, 3);
    a.node->close_interval(a.costs);
    carry(a, b);
    fetch(b, PageId{0}, all);
    b.write(9, 4);
    b.node->close_interval(b.costs);
    // The barrier: everyone learns everything.
    for (auto& n : nodes) {
      carry(a, *n);
      carry(b, *n);
    }
    for (auto& n : nodes) n->node->begin_gc();
  }
  ProtocolConfig config;
  std::vector<std::unique_ptr<TestNode>> nodes;
  std::vector<TestNode*> all;
};

TEST(LrcNode, CollectionMakesTheLastWriterTheHomeAndDropsStaleCopies) {
  Collection gc(GcCopies::LastWriter);
  EXPECT_EQ(gc.nodes[0]->directory.home(PageId{0}), node_id(1));
  EXPECT_EQ(gc.nodes[1]->node->gc_step(PageId{0}), GcStep::Keep);  // current already
  EXPECT_EQ(gc.nodes[0]->node->gc_step(PageId{0}), GcStep::Drop);
  EXPECT_EQ(gc.nodes[2]->node->gc_step(PageId{0}), GcStep::Drop);
  EXPECT_FALSE(gc.nodes[2]->node->holds(PageId{0}));
  for (auto& n : gc.nodes) n->node->discard_history(n->costs);
  // The page now comes from its new home, whole.
  fetch(*gc.nodes[2], PageId{0}, gc.all);
  EXPECT_EQ(gc.nodes[2]->read(8), 3);
  EXPECT_EQ(gc.nodes[2]->read(9), 4);
  EXPECT_EQ(gc.nodes[2]->node->counters().page_requests, 1U);
  EXPECT_EQ(gc.nodes[1]->node->counters().pages_served, 1U);
  EXPECT_EQ(gc.nodes[2]->node->usage(), 0U);
}

TEST(LrcNode, CollectionValidatingAllKeepsEveryCopy) {
  Collection gc(GcCopies::ValidateAll);
  EXPECT_EQ(gc.nodes[2]->node->gc_step(PageId{0}), GcStep::Validate);
  fetch(*gc.nodes[2], PageId{0}, gc.all);
  gc.nodes[2]->node->gc_validated(PageId{0});
  for (auto& n : gc.nodes) n->node->discard_history(n->costs);
  EXPECT_TRUE(gc.nodes[2]->node->holds(PageId{0}));
  EXPECT_EQ(gc.nodes[2]->read(9), 4);
  // Numbering goes on after the collection; the discarded records are gone.
  TestNode& b = *gc.nodes[1];
  b.write(10, 5);
  ASSERT_TRUE(b.node->close_interval(b.costs));
  EXPECT_EQ(b.node->vt()[1], 2U);
  EXPECT_FALSE(b.history.holds(node_id(1), 1));
  EXPECT_THROW((void)b.history.record(node_id(1), 1), std::logic_error);
}

TEST(LrcNode, HistoriesRefuseGapsAndForeignRecords) {
  History h(2);
  EXPECT_THROW(h.add({node_id(1), 2, {0, 2}, {}, 0}), std::logic_error);
  EXPECT_THROW(h.add({node_id(5), 1, {0, 1}, {}, 0}), std::runtime_error);
  EXPECT_THROW(h.add({node_id(1), 1, {0, 1, 0}, {}, 0}), std::runtime_error);
  h.add({node_id(1), 1, {0, 1}, {PageId{3}}, 0});
  h.add({node_id(1), 1, {0, 1}, {PageId{3}}, 0});  // by two paths: kept once
  EXPECT_EQ(h.record(node_id(1), 1).order_key, 1U);
  EXPECT_EQ(h.bytes_between({0, 0}, {0, 1}), 8U + 4 * 2 + 4);
}

}  // namespace
}  // namespace ncp2::lrc
