// Correctness: random data-race-free programs compute exactly their sequential result, on any
// node count, on both machines, and the race detector (on for all of them) reports nothing.
// NCP2_RANDOM_PROGRAMS=N sets how many (default 300); the dsm_random_soak executable runs many more.
#include <cstdio>
#include <cstdlib>
#include <string>

#include <gtest/gtest.h>

#include "tests/dsm/random_check.hpp"

namespace ncp2::dsm::testing {
namespace {

TEST(RandomPrograms, DataRaceFreeProgramsComputeTheirSequentialResult) {
  const char* env = std::getenv("NCP2_RANDOM_PROGRAMS");
  const int count = env ? std::atoi(env) : 300;
  int checked = 0;
  Coverage coverage;
  for (std::uint64_t seed = 1; seed <= static_cast<std::uint64_t>(count); ++seed) {
    const RandomProgram program = generate_program(seed);
    const std::string problem = check_program(program, &coverage);
    ASSERT_TRUE(problem.empty()) << program.describe() << "\n"
                                 << problem << "\nreproduce with: dsm_random_soak --seed " << seed
                                 << " --count 1";
    ++checked;
  }
  EXPECT_EQ(checked, count);
  // The batch really exercised the protocol (not vacuous): pages moved, several writers were
  // asked for diffs of one page, garbage was collected, locks were forwarded, reads were checked.
  if (count >= 100) {
    EXPECT_GT(coverage.page_requests, 100u);
    EXPECT_GT(coverage.diff_requests, 100u);
    EXPECT_GT(coverage.multi_writer_fetches, 10u);
    EXPECT_GT(coverage.gc_runs, 10u);
    EXPECT_GT(coverage.lock_forwards, 10u);
    EXPECT_GT(coverage.reads_checked, 1000u);
  }
  std::printf(
      "coverage: %llu page requests, %llu diff requests, %llu multi-writer fetches, %llu GC runs, "
      "%llu lock forwards, %llu reads checked\n",
      static_cast<unsigned long long>(coverage.page_requests),
      static_cast<unsigned long long>(coverage.diff_requests),
      static_cast<unsigned long long>(coverage.multi_writer_fetches),
      static_cast<unsigned long long>(coverage.gc_runs),
      static_cast<unsigned long long>(coverage.lock_forwards),
      static_cast<unsigned long long>(coverage.reads_checked));
}

}  // namespace
}  // namespace ncp2::dsm::testing
