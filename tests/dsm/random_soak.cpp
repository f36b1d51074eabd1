// Soak runs of the random-program correctness check:
//   dsm_random_soak [--count N] [--seed FIRST]
// Checks programs FIRST .. FIRST+N-1; prints progress and every failing seed; exit 1 on failure.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "tests/dsm/random_check.hpp"

int main(int argc, char** argv) {
  std::uint64_t count = 1000;
  std::uint64_t first = 1;
  for (int i = 1; i < argc; ++i) {
    const bool has_value = i + 1 < argc;
    if (std::strcmp(argv[i], "--count") == 0 && has_value)
      count = std::strtoull(argv[++i], nullptr, 10);
    else if (std::strcmp(argv[i], "--seed") == 0 && has_value)
      first = std::strtoull(argv[++i], nullptr, 10);
    else {
      std::fprintf(stderr, "usage: dsm_random_soak [--count N] [--seed FIRST]\n");
      return 2;
    }
  }
  std::uint64_t failures = 0;
  const auto start = std::chrono::steady_clock::now();
  for (std::uint64_t k = 0; k < count; ++k) {
    const auto program = ncp2::dsm::testing::generate_program(first + k);
    const std::string problem = ncp2::dsm::testing::check_program(program);
    if (!problem.empty()) {
      ++failures;
      std::printf("FAIL %s\n  %s\n", program.describe().c_str(), problem.c_str());
    }
    if ((k + 1) % 1000 == 0 || k + 1 == count) {
      const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      std::fprintf(stderr, "\r%llu/%llu programs, %llu failed, %.1f s",
                   static_cast<unsigned long long>(k) + 1, static_cast<unsigned long long>(count),
                   static_cast<unsigned long long>(failures), s);
    }
  }
  std::fprintf(stderr, "\n");
  std::printf("%llu passed, %llu failed\n", static_cast<unsigned long long>(count - failures),
              static_cast<unsigned long long>(failures));
  return failures == 0 ? 0 : 1;
}
