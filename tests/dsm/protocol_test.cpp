// The TreadMarks protocol on both machines: message laws, coherence, misuse diagnostics.
#include <array>
#include <cstring>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tests/dsm/harness.hpp"

namespace ncp2::dsm {
namespace {
using namespace emu::literals;
using testing::Harness;
using testing::machine;

constexpr std::array kBoth = {emu::MachineKind::Ncp2, emu::MachineKind::TreadMarks};

TEST(Protocol, BarrierCostsTwoMessagesPerOtherNode) {
  for (auto kind : kBoth) {
    for (int n = 1; n <= 9; ++n) {
      Harness h(machine(kind, n));
      const auto r = h.run([](Process& p) {
        for (int i = 0; i < 3; ++i) p.barrier(0);
      });
      ASSERT_EQ(r.status, emu::RunStatus::Completed) << r.diagnosis;
      const std::uint64_t episodes = 3 + 1;  // + the exit barrier
      EXPECT_EQ(h.dsm.barrier_episodes(), episodes);
      EXPECT_EQ(h.total(kBarrierArrival), episodes * static_cast<std::uint64_t>(n - 1)) << "n=" << n;
      EXPECT_EQ(h.total(kBarrierRelease), episodes * static_cast<std::uint64_t>(n - 1)) << "n=" << n;
      EXPECT_EQ(h.total_of([](const NodeStats& s) { return s.messages; }),
                episodes * 2 * static_cast<std::uint64_t>(n - 1));
    }
  }
}

std::uint64_t lock_messages(const Harness& h) {
  return h.total(kLockRequest) + h.total(kLockForward) + h.total(kLockGrant);
}

TEST(Protocol, LockAcquireFromTheManagerCostsTwoMessages) {
  for (auto kind : kBoth) {
    Harness h(machine(kind, 4));  // lock 1 is managed by node 1
    h.run([](Process& p) {
      if (p.id() == 2) {
        p.lock_acquire(1);
        p.lock_release(1);
      }
    });
    EXPECT_EQ(lock_messages(h), 2u);
    EXPECT_EQ(h.total(kLockRequest), 1u);
    EXPECT_EQ(h.total(kLockGrant), 1u);
  }
}

TEST(Protocol, ReacquiringByTheLastHolderCostsNoMessage) {
  for (auto kind : kBoth) {
    Harness h(machine(kind, 4));
    h.run([](Process& p) {
      if (p.id() == 2) {
        for (int i = 0; i < 5; ++i) {
          auto guard = p.lock(1);
        }
      }
    });
    EXPECT_EQ(lock_messages(h), 2u);
    EXPECT_EQ(h.dsm.stats(emu::node_id(2)).local_lock_acquires, 4u);
  }
}

TEST(Protocol, ForwardedLockAcquireCostsThreeMessages) {
  for (auto kind : kBoth) {
    Harness h(machine(kind, 4));
    std::uint64_t after_first = 0;
    h.run([&](Process& p) {
      if (p.id() == 2) {
        auto guard = p.lock(1);
      }
      p.barrier(0);
      if (p.id() == 0) after_first = lock_messages(h);
      p.barrier(1);
      if (p.id() == 3) {
        auto guard = p.lock(1);  // manager 1 forwards to node 2, the last holder
      }
    });
    EXPECT_EQ(after_first, 2u);
    EXPECT_EQ(lock_messages(h) - after_first, 3u);
    EXPECT_EQ(h.total(kLockForward), 1u);
  }
}

TEST(Protocol, DiffFetchCostsTwoMessagesPerConcurrentWriter) {
  for (auto kind : kBoth) {
    for (int writers = 1; writers <= 6; ++writers) {
      Harness h(machine(kind, writers + 1));
      std::uint64_t before = 0;
      std::int64_t sum = 0;
      h.run([&](Process& p) {
        auto a = p.alloc<std::int64_t>("a", 512);  // one 4 KB page, homed at node 0
        auto v = p.view(a);
        if (p.id() > 0) (void)v.get(0);  // every writer holds the page first
        p.barrier(0);
        if (p.id() > 0) v.set(static_cast<std::size_t>(p.id()) * 8, p.id());  // disjoint words
        p.barrier(1);
        if (p.id() == 0) {
          before = h.total(kDiffRequest) + h.total(kDiffReply);
          for (int w = 1; w <= writers; ++w) sum += v.get(static_cast<std::size_t>(w) * 8);
        }
      });
      const std::uint64_t diff_messages = h.total(kDiffRequest) + h.total(kDiffReply) - before;
      EXPECT_EQ(diff_messages, 2u * static_cast<std::uint64_t>(writers)) << "writers=" << writers;
      EXPECT_EQ(sum, static_cast<std::int64_t>(writers) * (writers + 1) / 2);
    }
  }
}

// Garbage collection makes each written page's last writer its new home: the initial home (node
// 0) does not collect diffs of pages it no longer uses, and a later request for such a page is
// served by its last writer with the current data.
TEST(Protocol, GarbageCollectionMovesEachWrittenPageHomeToItsLastWriter) {
  for (auto kind : kBoth) {
    auto cfg = machine(kind, 4);
    cfg.dsm.gc_threshold_kb = 1;  // collect at almost every barrier
    Harness h(cfg);
    std::vector<std::int64_t> seen;
    std::uint64_t node0_diff_requests = 0;
    h.run([&](Process& p) {
      auto a = p.alloc<std::int64_t>("a", std::size_t{512} * 4);  // four pages, one written by each node
      auto v = p.view(a);
      const auto mine = static_cast<std::size_t>(p.id()) * 512;
      for (int round = 1; round <= 6; ++round) {
        for (std::size_t i = 0; i < 512; i += 8) v.set(mine + i, round * 100 + p.id());
        p.barrier(0);
      }
      if (p.id() == 0) node0_diff_requests = h.dsm.stats(p.node()).diff_requests;
      p.barrier(0);
      if (p.id() == 1)
        for (int owner = 0; owner < 4; ++owner)
          seen.push_back(v.get(static_cast<std::size_t>(owner) * 512 + 8));
    });
    EXPECT_GT(h.dsm.stats(emu::node_id(0)).gc_runs, 0u);
    EXPECT_EQ(node0_diff_requests, 0u) << "node 0 must not collect the other nodes' pages";
    EXPECT_EQ(seen, (std::vector<std::int64_t>{600, 601, 602, 603}));
  }
}

// One node has nothing to keep coherent: no faults, twins or diffs, whatever it writes, so its time
// is the sequential program's (the speedup baseline).
TEST(Protocol, ALoneNodeRunsWithoutProtocolWork) {
  for (auto kind : kBoth) {
    Harness h(machine(kind, 1));
    h.run([](Process& p) {
      auto a = p.alloc<std::int64_t>("a", 4096);
      auto v = p.view(a);
      for (int round = 0; round < 3; ++round) {
        for (std::size_t i = 0; i < a.size(); i += 64) v.set(i, v.get(i) + round);
        auto g = p.lock(3);
        p.barrier(0);
      }
    });
    const NodeStats& s = h.dsm.stats(emu::node_id(0));
    EXPECT_EQ(s.page_faults, 0u);
    EXPECT_EQ(s.twins, 0u);
    EXPECT_EQ(s.diffs_created, 0u);
    EXPECT_EQ(s.messages, 0u);
  }
}

TEST(Protocol, EveryRequestHasItsReply) {
  for (auto kind : kBoth) {
    Harness h(machine(kind, 5));
    h.run([](Process& p) {
      auto a = p.alloc<std::int32_t>("a", 4096);
      auto v = p.view(a);
      for (int round = 0; round < 3; ++round) {
        for (auto i = static_cast<std::size_t>(p.id()); i < a.size(); i += 5) v.set(i, v.get(i) + 1);
        {
          auto g = p.lock(7);
          v.set(0, v.get(0) + 1);
        }
        p.barrier(0);
      }
    });
    EXPECT_EQ(h.total(kPageRequest), h.total(kPageReply));
    EXPECT_EQ(h.total(kDiffRequest), h.total(kDiffReply));
    // Every acquire that was not local got exactly one grant (requests from a lock's manager go
    // straight to the holder as a forward, so requests alone undercount).
    EXPECT_EQ(h.total(kLockGrant),
              h.total_of([](const NodeStats& st) { return st.lock_acquires - st.local_lock_acquires; }));
    EXPECT_LE(h.total(kLockRequest), h.total(kLockGrant));
    EXPECT_GT(h.total(kDiffRequest), 0u);
  }
}

TEST(Protocol, ReleaseOfALockNotHeldIsDiagnosed) {
  Harness h(machine(emu::MachineKind::Ncp2, 2));
  try {
    h.run([](Process& p) {
      if (p.id() == 1) p.lock_release(4);
    });
    FAIL() << "expected a DsmError";
  } catch (const DsmError& e) {
    EXPECT_NE(std::string(e.what()).find("node 1 releases lock 4 which it does not hold"), std::string::npos)
        << e.what();
  }
}

TEST(Protocol, BarrierIdOutOfRangeIsDiagnosed) {
  Harness h(machine(emu::MachineKind::Ncp2, 2));
  try {
    h.run([](Process& p) { p.barrier(kMaxBarriers + 5); });
    FAIL() << "expected a DsmError";
  } catch (const DsmError& e) {
    EXPECT_NE(std::string(e.what()).find("barrier id 1029 is out of range"), std::string::npos) << e.what();
  }
}

TEST(Protocol, MismatchedBarriersAreDiagnosed) {
  Harness h(machine(emu::MachineKind::Ncp2, 3));
  try {
    h.run([](Process& p) { p.barrier(p.id() == 2 ? 1 : 0); });
    FAIL() << "expected a DsmError";
  } catch (const DsmError& e) {
    EXPECT_NE(std::string(e.what()).find("barrier mismatch"), std::string::npos) << e.what();
  }
}

TEST(Protocol, ALockNeverReleasedIsADeadlockNamingTheWaits) {
  Harness h(machine(emu::MachineKind::TreadMarks, 3));
  const auto r = h.run([](Process& p) {
    if (p.id() == 1) p.lock_acquire(5);  // never released
    p.barrier(0);
    if (p.id() == 2) p.lock_acquire(5);
  });
  ASSERT_EQ(r.status, emu::RunStatus::Deadlock);
  EXPECT_NE(r.diagnosis.find("node 2 PP: lock 5"), std::string::npos) << r.diagnosis;
  EXPECT_NE(r.diagnosis.find("node 0 PP: the exit barrier"), std::string::npos) << r.diagnosis;
}

TEST(Protocol, OutOfRangeAccessNamesNodeArrayAndIndex) {
  Harness h(machine(emu::MachineKind::Ncp2, 2));
  try {
    h.run([](Process& p) {
      auto a = p.alloc<double>("temperatures", 100);
      if (p.id() == 1) (void)p.view(a).get(100);
    });
    FAIL() << "expected a DsmError";
  } catch (const DsmError& e) {
    EXPECT_NE(std::string(e.what()).find(
                  "node 1: index 100 is out of range for shared array 'temperatures' of 100 elements"),
              std::string::npos)
        << e.what();
  }
}

TEST(Protocol, AllocationsMustMatchAcrossProcesses) {
  Harness h(machine(emu::MachineKind::Ncp2, 2));
  EXPECT_THROW(h.run([](Process& p) { (void)p.alloc<int>(p.id() == 0 ? "a" : "b", 10); }), DsmError);
}

// Concurrent writers of different bytes of the same words (node p writes the elements i with
// i % n == p of a byte or 16-bit array): every write survives, so diffs must carry bytes, not whole
// words with the stale bytes of the other writers.
template <class T>
void check_interleaved_writers(emu::MachineKind kind, int n) {
  constexpr std::size_t kCount = std::size_t{3} * 4096 / sizeof(T) + 5;  // 3 pages + a bit
  constexpr int kRounds = 3;
  const auto value = [](int round, std::size_t i) {
    return static_cast<T>(static_cast<std::size_t>(round) * 37 + i * 11 + 1);
  };
  Harness h(machine(kind, n));
  std::size_t wrong = 0;
  const auto r = h.run([&](Process& p) {
    auto a = p.alloc<T>("interleaved", kCount);
    auto v = p.view(a);
    const auto me = static_cast<std::size_t>(p.id());
    const auto nodes = static_cast<std::size_t>(n);
    for (int round = 1; round <= kRounds; ++round) {
      for (std::size_t i = me; i < kCount; i += nodes) v.set(i, value(round, i));
      p.barrier(0);
      for (std::size_t i = 0; i < kCount; ++i)
        if (v.get(i) != value(round, i)) ++wrong;
      p.barrier(1);
    }
  });
  ASSERT_EQ(r.status, emu::RunStatus::Completed) << r.diagnosis;
  EXPECT_EQ(wrong, 0u) << "element size " << sizeof(T) << ", n=" << n << ", "
                       << (kind == emu::MachineKind::Ncp2 ? "ncp2" : "treadmarks");
}

TEST(Protocol, ConcurrentWritesToBytesOfTheSameWordAllSurvive) {
  for (auto kind : kBoth) {
    for (int n : {2, 3, 4, 8}) {
      check_interleaved_writers<std::uint8_t>(kind, n);
      check_interleaved_writers<std::uint16_t>(kind, n);
    }
  }
}

TEST(Protocol, LockProtectedCounterIsExact) {
  for (auto kind : kBoth) {
    for (int n : {1, 2, 3, 5, 8}) {
      Harness h(machine(kind, n));
      SharedArray<std::int64_t> counter;
      std::int64_t final_value = -1;
      const auto r = h.run(
          [&](Process& p) {
            counter = p.alloc<std::int64_t>("counter", 1);
            auto v = p.view(counter);
            for (int i = 0; i < 10; ++i) {
              auto g = p.lock(3);
              v.set(0, v.get(0) + p.id() + 1);
              p.compute(1_us);
            }
          },
          [&](Process& p) {
            if (p.id() == 0) final_value = p.view(counter).get(0);  // through the DSM, after exit
          });
      ASSERT_EQ(r.status, emu::RunStatus::Completed) << r.diagnosis;
      EXPECT_EQ(final_value, 10 * n * (n + 1) / 2) << "n=" << n;
    }
  }
}

}  // namespace
}  // namespace ncp2::dsm

namespace ncp2::dsm {
namespace {

// Operation counts are charged with the [cost] cycles at the PP clock.
TEST(ComputationModel, OperationCountsAreChargedWithTheConfiguredCyclesPerOperation) {
  auto cfg = testing::machine(emu::MachineKind::TreadMarks, 1);
  cfg.cost.flop = 3;
  cfg.cost.load = 2;
  cfg.cost.store = 1;
  cfg.cost.int_op = 0.5;
  cfg.cost.branch = 4;
  testing::Harness h(cfg);
  double cycles = 0;
  emu::Duration charged{};
  h.run([&](Process& p) {
    const OpCounts per_point{.flops = 4, .int_ops = 3, .loads = 5, .stores = 1, .branches = 1};
    cycles = p.cycles_of(per_point * 10);
    const emu::TimePoint before = h.kernel.now();
    p.charge(per_point * 10);
    charged = h.kernel.now() - before;
  });
  EXPECT_DOUBLE_EQ(cycles, 10 * (4 * 3 + 3 * 0.5 + 5 * 2 + 1 * 1 + 1 * 4));
  // 285 cycles at 100 MHz = 2.85 us.
  EXPECT_EQ(charged, emu::nanoseconds(2850));
}

// dsm.lazy_diffs (treadmarks): a page written by its only writer in ten intervals costs one twin
// and no diff until node 1 asks for it; then one diff is charged, with the changed words of every
// interval it covers. The data node 1 reads is the same either way.
// tmk/'s deferred write faults rest on two runtime calls: which write faults need nothing but the
// node (a valid page, whatever twin waits), and a page shown as other bytes (the snapshot) to
// everything the runtime reads of it - here a page request served by the home, and a diff.
TEST(Protocol, LocalWriteFaultsAndPagesShownAsOtherBytes) {
  auto cfg = machine(emu::MachineKind::TreadMarks, 2);
  Harness h(cfg);
  std::int32_t fetched = 0;
  std::int32_t diffed = 0;
  std::vector<bool> local;
  h.run([&](Process& p) {
    auto a = p.alloc<std::int32_t>("a", 2048);  // two pages, homed at node 0
    auto v = p.view(a);
    dsm::Runtime& rt = p.runtime();
    std::vector<std::byte> shown(4096);
    if (p.id() == 0) {
      local.push_back(rt.write_fault_is_local(p.node(), a.region(), 0));  // held, valid: local
      v.set(0, 7);
      local.push_back(rt.write_fault_is_local(p.node(), a.region(), 0));  // writable already: not a Read page
      const std::int32_t fake = 99;
      std::memcpy(shown.data() + 4, &fake, 4);  // word 1 reads 99 while shown
      rt.show_page_as(p.node(), a.region(), 0, shown.data());
    }
    p.barrier(0);
    if (p.id() == 1) {
      local.push_back(rt.write_fault_is_local(p.node(), a.region(), 1));  // not held here: not local
      fetched = v.get(1);                                                 // the home serves its page as shown
    }
    p.barrier(1);
    if (p.id() == 0) {
      rt.show_page_as(p.node(), a.region(), 0, nullptr);
      v.set(2, 5);  // a later interval: node 1's fault on word 2 needs this diff, made from memory
    }
    p.barrier(2);
    if (p.id() == 1) diffed = v.get(2);
  });
  EXPECT_EQ(local, (std::vector<bool>{true, false, false}));
  EXPECT_EQ(fetched, 99) << "the page request read the shown bytes, not node 0's memory";
  EXPECT_EQ(diffed, 5) << "shown no more: the diff read node 0's memory";
}

TEST(Protocol, LazyDiffsChargeOneTwinAndTheDiffOnlyWhenRequested) {
  using namespace emu::literals;
  struct Outcome {
    std::vector<emu::Duration> writes;  // node 0's write faults, one per interval
    emu::Duration reader_wait{};
    std::int64_t read = 0;
  };
  auto run = [](int lazy) {
    auto cfg = machine(emu::MachineKind::TreadMarks, 2);
    cfg.dsm.lazy_diffs = lazy;
    cfg.dsm.fault_trap = 10_us;
    cfg.dsm.diff_scan_per_word = 1_us;
    cfg.dsm.diff_encode_per_word = 100_ns;
    Harness h(cfg);
    Outcome out;
    h.run([&](Process& p) {
      auto a = p.alloc<std::int32_t>("a", 1024);  // one page, homed at node 0
      auto v = p.view(a);
      if (p.id() == 1) (void)v.get(0);  // node 1 holds the page: it will need node 0's diffs
      p.barrier(20);
      for (std::uint32_t i = 0; i < 10; ++i) {
        if (p.id() == 0) {  // one word per interval
          const emu::TimePoint before = h.kernel.now();
          v.set(i, static_cast<std::int32_t>(i + 1));
          out.writes.push_back(h.kernel.now() - before);
        }
        p.barrier(i);
      }
      if (p.id() == 1) {
        p.compute(1_ms);  // the last barrier's traffic is over
        const emu::TimePoint before = h.kernel.now();
        for (std::size_t i = 0; i < 10; ++i) out.read += v.get(i);
        out.reader_wait = h.kernel.now() - before;
      }
    });
    return out;
  };
  const Outcome eager = run(0);
  const Outcome lazy = run(1);
  EXPECT_EQ(eager.read, 55);
  EXPECT_EQ(lazy.read, 55);
  ASSERT_EQ(eager.writes.size(), 10U);
  ASSERT_EQ(lazy.writes.size(), 10U);
  const emu::Duration twin = lazy.writes[0] - 10_us;  // the first write: trap and twin, both ways
  EXPECT_GT(twin, emu::Duration{0});
  EXPECT_EQ(eager.writes[0], lazy.writes[0]);
  for (std::size_t i = 1; i < 10; ++i) {
    EXPECT_EQ(lazy.writes[i], 10_us) << i;  // lazily the trap only: the twin is kept
    EXPECT_EQ(eager.writes[i], 10_us + 1024_us + 100_ns + twin) << i;  // the diff, a new twin
  }
  // Node 1's diff fetch: eagerly 9 diffs exist and the 10th is made (one scan, one word); lazily
  // one diff is made, one scan with the 10 intervals' words.
  EXPECT_EQ(lazy.reader_wait - eager.reader_wait, 9 * 100_ns);
}

}  // namespace
}  // namespace ncp2::dsm
