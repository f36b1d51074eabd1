// A page served while its server has an open interval that writes it (lrc::Node::serve_page) is
// the page as the server's last closed interval left it. No write notice covers the open
// interval's writes yet: the reader learns them later, through the interval's diff, and a diff
// carries only the bytes that differ from the interval's twin. A copy that held an intermediate
// value (255 in a word whose twin holds 0 and whose final value is 256) would keep byte 0 = 0xff,
// which the diff (byte 1 only) never overwrites: the reader would end with 511.
#include <array>
#include <cstdint>
#include <string>
#include <utility>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "tests/dsm/harness.hpp"

namespace ncp2::dsm {
namespace {
using namespace emu::literals;
using testing::Harness;
using testing::machine;

constexpr std::size_t kPage = 4096;

struct Config {
  emu::MachineKind kind;
  int lazy;
  [[nodiscard]] std::string name() const {
    return std::string(kind == emu::MachineKind::Ncp2 ? "ncp2" : "treadmarks") + (lazy ? " lazy" : "");
  }
};
constexpr std::array kConfigs = {Config{emu::MachineKind::Ncp2, 0}, Config{emu::MachineKind::TreadMarks, 0},
                                 Config{emu::MachineKind::TreadMarks, 1}};

// Where a garbage collection falls: none; at a barrier before the scenario (the page's home moves
// to its last writer, node 1, which then serves it); at the barrier after it (the reader's copy,
// stale, is dropped or brought up to date by the diffs).
enum class Gc { None, Before, AfterLastWriter, AfterValidateAll };
const char* gc_name(Gc gc) {
  switch (gc) {
    case Gc::None:
      return "no collection";
    case Gc::Before:
      return "a collection before";
    case Gc::AfterLastWriter:
      return "a collection after (last-writer)";
    case Gc::AfterValidateAll:
      return "a collection after (validate-all)";
  }
  return "";
}

struct Scenario {
  Config config{};
  Gc gc = Gc::None;
  // The writer's interval starts with a lock leaving it while it runs on (close_interval_running):
  // the page is carried into the open interval, its twin the snapshot of that close.
  bool carried = false;
  [[nodiscard]] std::string name() const {
    return fmt::format("{}, {}{}", config.name(), gc_name(gc), carried ? ", carried" : "");
  }
};

template <class T>
struct Outcome {
  T seen{};                     // the reader's value of the word after the next barrier
  std::uint32_t lock_word = 0;  // the reader's value of the word written under the lock (carried)
  bool served_between = false;  // the reader's first access to the page fell between the two writes
  bool grant_first = false;     // carried: the lock left the writer before its first write
  std::uint64_t gc_runs = 0;
  std::uint64_t served_by_writer = 0;  // pages the writer served
};

// The writer sets word 0 of page A to `first`, computes, then sets it to `second`, in one interval;
// meanwhile the reader, which has never held page A, reads another word of it (the page comes from
// the writer, its home). After a barrier the reader reads word 0.
template <class T>
Outcome<T> write_twice_while_served(const Scenario& s, T first, T second) {
  auto cfg = machine(s.config.kind, 2);
  cfg.dsm.lazy_diffs = s.config.lazy;
  if (s.gc != Gc::None) cfg.dsm.gc_threshold_kb = 1;
  if (s.gc == Gc::AfterValidateAll) cfg.dsm.gc_copies = lrc::GcCopies::ValidateAll;
  Harness h(cfg);
  constexpr std::size_t kPerPage = kPage / sizeof(T);
  constexpr std::size_t kProbe = kPerPage / 2;   // the reader's first access to page A
  constexpr std::size_t kLocked = kPerPage / 4;  // written under lock 1 (carried)
  const int writer = s.gc == Gc::Before ? 1 : 0;
  // Page B filled: a diff above the 1 KB collection threshold, counted toward it at the page's
  // next write (so a collection follows the barrier after that).
  const auto fill_page_b = [](const ArrayView<T>& v, T value) {
    for (std::size_t i = kPerPage; i < 2 * kPerPage; ++i) v.set(i, value);
  };
  const bool gc_after = s.gc == Gc::AfterLastWriter || s.gc == Gc::AfterValidateAll;
  Outcome<T> out;
  emu::TimePoint first_at{}, second_at{}, probe_begin{}, probe_end{}, granted_at{};
  const auto r = h.run([&](Process& p) {
    auto a = p.alloc<T>("a", 2 * kPerPage);  // pages A and B, homed at node 0
    const auto v = p.view(a);
    p.barrier(0);
    if (s.gc != Gc::None && p.id() == writer) {
      if (s.gc == Gc::Before) v.set(kPerPage - 1, T{7});  // node 1: page A's last writer, its next home
      fill_page_b(v, T{1});
    }
    p.barrier(1);
    if (s.gc == Gc::Before && p.id() == writer) fill_page_b(v, T{2});
    p.barrier(3);  // the collection before
    const emu::TimePoint start = h.kernel.now();
    if (p.id() == writer) {
      if (s.carried) {
        p.lock_acquire(1);
        v.set(kLocked, T{100});
        p.lock_release(1);  // nobody waits: the interval stays open, until the reader's request
      }
      p.compute(start + 500_us - h.kernel.now());
      v.set(0, first);
      first_at = h.kernel.now();
      p.compute(1_ms);
      v.set(0, second);
      second_at = h.kernel.now();
      if (gc_after) fill_page_b(v, T{2});  // the collection after, at the next barrier
    } else {
      if (s.carried) {
        p.compute(100_us);
        p.lock_acquire(1);
        granted_at = h.kernel.now();
      }
      p.compute(start + 1_ms - h.kernel.now());
      probe_begin = h.kernel.now();
      (void)v.get(kProbe);
      probe_end = h.kernel.now();
      if (s.carried) {
        out.lock_word = static_cast<std::uint32_t>(v.get(kLocked));
        p.lock_release(1);
      }
    }
    p.barrier(2);
    if (p.id() != writer) out.seen = v.get(0);
  });
  EXPECT_EQ(r.status, emu::RunStatus::Completed) << r.diagnosis;
  out.served_between = first_at < probe_begin && probe_end < second_at;
  out.grant_first = granted_at != emu::TimePoint{} && granted_at < first_at;
  out.gc_runs = h.dsm.stats(emu::node_id(0)).gc_runs;
  out.served_by_writer = h.dsm.stats(emu::node_id(writer)).pages_served;
  return out;
}

template <class T>
void expect_second_seen(const Scenario& s, T first, T second) {
  const std::string where = fmt::format("{}: {} then {}", s.name(), first, second);
  const Outcome<T> out = write_twice_while_served(s, first, second);
  ASSERT_TRUE(out.served_between) << where << ": the page must be served between the writes";
  EXPECT_GE(out.served_by_writer, 1U) << where;
  EXPECT_EQ(out.seen, second) << where;
}

// A word through a value whose low byte differs from the twin's and back to one whose low byte
// equals it; a word restored to its twin's value (an empty diff); sub-word writes (a halfword, a
// byte restored) beside bytes nobody writes.
TEST(ServedPage, HoldsNoWriteOfTheServersOpenInterval) {
  for (const Config c : kConfigs) {
    const Scenario s{c};
    expect_second_seen<std::uint32_t>(s, 255, 256);
    expect_second_seen<std::uint32_t>(s, 255, 0);
    expect_second_seen<std::uint32_t>(s, 0x1234'5678, 0x1200'0000);
    expect_second_seen<std::uint16_t>(s, 0x00ff, 0x0100);
    expect_second_seen<std::uint8_t>(s, 0x5a, 0);
  }
}

// The lock leaves the writer while its interval is open: the interval closes with the lock's word,
// and the page, carried into the next interval, is written there. Served then, it is the snapshot
// of that close (the lock's word written, the next interval's writes not).
TEST(ServedPage, ACarriedPageIsServedAsTheClosedIntervalLeftIt) {
  for (const Config c : kConfigs) {
    const Scenario s{c, Gc::None, true};
    for (const auto& [first, second] : {std::pair<std::uint32_t, std::uint32_t>{255, 256}, {255, 0}}) {
      const std::string where = fmt::format("{}: {} then {}", s.name(), first, second);
      const Outcome<std::uint32_t> out = write_twice_while_served(s, first, second);
      ASSERT_TRUE(out.grant_first) << where << ": the lock must leave before the first write";
      ASSERT_TRUE(out.served_between) << where;
      EXPECT_EQ(out.lock_word, 100U) << where << ": the closed interval's write";
      EXPECT_EQ(out.seen, second) << where;
    }
  }
}

// A collection before (the page's new home serves it) or after the serve (the reader's stale copy
// dropped, or brought up to date by the diff under validate-all).
TEST(ServedPage, AGarbageCollectionBeforeOrAfterTheServeKeepsTheWord) {
  for (const Config c : kConfigs) {
    for (const Gc gc : {Gc::Before, Gc::AfterLastWriter, Gc::AfterValidateAll}) {
      const Scenario s{c, gc};
      const std::string where = s.name();
      const Outcome<std::uint32_t> out = write_twice_while_served<std::uint32_t>(s, 255, 256);
      ASSERT_TRUE(out.served_between) << where;
      EXPECT_EQ(out.gc_runs, 1U) << where;
      EXPECT_GE(out.served_by_writer, 1U) << where << ": the page comes from the writer";
      EXPECT_EQ(out.seen, 256U) << where;
    }
  }
}

}  // namespace
}  // namespace ncp2::dsm
