// A real node's program resumes once its agent has replied (issue 43, eighth session,
// dsm.program_resume): every fault or Tmk call handed to the server pays the key once, at its end —
// inside its last wait when it ended with one (the wait longer by the key, all of it PPLWait), as
// the node's own time otherwise (a release, a local acquire). A fault whose page fetch is followed
// by a diff fetch resumes once, in the diff fetch. Off (0) by default: the golden runs hold that
// it then changes nothing.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "dsm/wait_chain.hpp"
#include "tests/dsm/harness.hpp"

namespace ncp2::dsm {
namespace {

using testing::Harness;
using testing::machine;

constexpr std::size_t kPageWords = 1024;  // 4 KB pages of 32-bit words
constexpr std::int64_t kResumePs = 5'000'000;  // 5 us

struct Recorded {
  std::vector<WaitRecord> waits;
  emu::Duration release{0};  // node 1's release of the lock it took from node 0 (no wait)
  emu::Duration local{0};    // node 0's acquire and release of its own lock (no message)
  emu::TimePoint end;
};

// Node 0 writes a word of page 0 under lock 1 (managed by node 1), and takes lock 0 (its own) once;
// after a barrier node 1 takes lock 1 (a remote acquire: one wait), reads page 0 (a page fault,
// then the diff of node 0's write: two waits of one fault) and releases the lock.
Recorded run(const std::string& resume) {
  SystemConfig config = machine(emu::MachineKind::TreadMarks, 2);
  apply_override(config, "dsm.program_resume=" + resume);
  Harness h(config);
  Recorded r;
  const auto result = h.run([&](Process& p) {
    auto data = p.view(p.alloc<std::int32_t>("data", 2 * kPageWords));
    p.barrier(0);
    if (p.id() == 0) {
      p.lock_acquire(LockId{1});
      data.set(1, 7);
      p.lock_release(LockId{1});
      const emu::TimePoint start = h.kernel.now();
      p.lock_acquire(LockId{0});
      p.lock_release(LockId{0});
      r.local = h.kernel.now() - start;
    }
    p.barrier(1);
    if (p.id() == 1) {
      p.lock_acquire(LockId{1});
      EXPECT_EQ(data.get(1), 7);
      const emu::TimePoint start = h.kernel.now();
      p.lock_release(LockId{1});
      r.release = h.kernel.now() - start;
    }
    p.barrier(2);
  });
  EXPECT_EQ(result.status, emu::RunStatus::Completed) << result.diagnosis;
  r.waits = h.waits;
  r.end = h.kernel.now();
  return r;
}

const WaitRecord& find(const Recorded& r, int node, Operation op, std::size_t nth = 0) {
  std::size_t seen = 0;
  for (const WaitRecord& w : r.waits)
    if (emu::index(w.node) == node && w.operation == op && seen++ == nth) return w;
  ADD_FAILURE() << "no wait " << to_string(op) << " #" << nth << " at node " << node;
  static const WaitRecord none;
  return none;
}

std::int64_t duration_ps(const WaitRecord& w) { return emu::to_ps(w.end - w.start); }
std::int64_t resume_part_ps(const WaitRecord& w) {
  return emu::to_ps(fold_wait(w.chain, w.node, false)[WaitPart::PPLWait]);
}

TEST(ProgramResume, TheLastWaitOfAnEntryHoldsTheResumption) {
  const Recorded plain = run("0s");
  const Recorded resumed = run("5us");
  ASSERT_EQ(plain.waits.size(), resumed.waits.size());
  // Node 1's remote acquire: one wait, longer by the key, all of it the program resuming.
  const WaitRecord& lock0 = find(plain, 1, Operation::LockAcquire);
  const WaitRecord& lock5 = find(resumed, 1, Operation::LockAcquire);
  EXPECT_EQ(duration_ps(lock5) - duration_ps(lock0), kResumePs);
  EXPECT_EQ(resume_part_ps(lock5) - resume_part_ps(lock0), kResumePs);
  // Its read: the page, then the diff, in one fault: only the diff fetch resumes.
  const WaitRecord& page0 = find(plain, 1, Operation::PageFault);
  const WaitRecord& page5 = find(resumed, 1, Operation::PageFault);
  EXPECT_EQ(duration_ps(page5), duration_ps(page0));
  const WaitRecord& diff0 = find(plain, 1, Operation::DiffFetch);
  const WaitRecord& diff5 = find(resumed, 1, Operation::DiffFetch);
  EXPECT_EQ(duration_ps(diff5) - duration_ps(diff0), kResumePs);
  EXPECT_EQ(resume_part_ps(diff5) - resume_part_ps(diff0), kResumePs);
}

TEST(ProgramResume, AnEntryWithoutAWaitPaysItAsItsOwnTime) {
  const Recorded plain = run("0s");
  const Recorded resumed = run("5us");
  EXPECT_EQ(emu::to_ps(resumed.release - plain.release), kResumePs);
  EXPECT_EQ(emu::to_ps(resumed.local - plain.local), 2 * kResumePs);  // an acquire and a release
}

// The resumption overlaps what the node serves meanwhile: its program resumes the key after the
// reply, and not before a handler running then is done (a real node's agent serves while its
// program wakes). The barrier manager serves nothing after its own release: exactly the key there.
TEST(ProgramResume, EveryBarrierResumesOnceInItsWait) {
  const Recorded plain = run("0s");
  const Recorded resumed = run("5us");
  int barriers = 0;
  for (std::size_t i = 0; i < plain.waits.size(); ++i) {
    if (plain.waits[i].operation != Operation::Barrier) continue;
    ASSERT_EQ(resumed.waits[i].operation, Operation::Barrier);
    const std::int64_t more = resume_part_ps(resumed.waits[i]) - resume_part_ps(plain.waits[i]);
    if (emu::index(plain.waits[i].node) == 0) {
      EXPECT_EQ(more, kResumePs) << "wait " << i;
    } else {
      EXPECT_GT(more, 0) << "wait " << i;
      EXPECT_LE(more, kResumePs) << "wait " << i;
    }
    ++barriers;
  }
  EXPECT_GE(barriers, 6);  // three barriers, two nodes (and the exit's)
  EXPECT_EQ(machine(emu::MachineKind::TreadMarks, 2).dsm.program_resume, emu::Duration{0});  // off by default
}

TEST(ProgramResume, ANegativeResumptionIsRefused) {
  SystemConfig c = machine(emu::MachineKind::TreadMarks, 2);
  EXPECT_THROW(
      {
        apply_override(c, "dsm.program_resume=-1us");
        validate(c);
      },
      emu::ConfigError);
}

}  // namespace
}  // namespace ncp2::dsm
