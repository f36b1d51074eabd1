#include "scheduling/programs.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>

namespace ncp2::sched {

namespace {

constexpr int kProgramSteps = 1600;  // 8 s of solo time at 5 ms
constexpr int kProgramThreads = 2;

// A fixed portable generator (splitmix64): the traces are the same on every machine.
class Recipe {
 public:
  explicit Recipe(std::uint64_t seed) : state_(seed) {}
  double uniform() {  // [0, 1)
    std::uint64_t x = (state_ += 0x9e3779b97f4a7c15ULL);
    x = (x ^ (x >> 30U)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27U)) * 0x94d049bb133111ebULL;
    x ^= x >> 31U;
    return static_cast<double>(x >> 11U) * 0x1.0p-53;
  }
  double around(double mean, double spread) { return std::max(0.0, mean + spread * (2 * uniform() - 1)); }

 private:
  std::uint64_t state_;
};

DemandTrace program(std::string name, std::string source,
                    const std::function<double(int, Recipe&)>& demand_at, std::uint64_t seed) {
  DemandTrace t;
  t.name = std::move(name);
  t.threads = kProgramThreads;
  t.step = kSyntheticStep;
  t.source = std::move(source);
  Recipe r(seed);
  for (int i = 0; i < kProgramSteps; ++i) t.demand.emplace_back(demand_at(i, r));
  return t;
}

DemandTrace microbenchmark(std::string name, double demand, std::string source) {
  DemandTrace t;
  t.name = std::move(name);
  t.threads = 1;
  t.step = kSyntheticStep;
  t.endless = true;
  t.source = std::move(source);
  t.demand.assign(20, Bandwidth(demand));
  return t;
}

// Levels that hold for 1 to 3 quanta (20 to 60 steps), chosen at random.
std::function<double(int, Recipe&)> irregular_levels() {
  return [left = 0, level = 0.0](int, Recipe& r) mutable {
    if (left == 0) {
      left = 20 + static_cast<int>(r.uniform() * 41);
      level = r.uniform() < 0.5 ? 22.0 : 3.0;
    }
    --left;
    return r.around(level, 1.0);
  };
}

}  // namespace

DemandTrace bbma_trace() { return microbenchmark("bbma", 13.5, "synthetic: near-0 % hit rate, saturating"); }
DemandTrace nbbma_trace() { return microbenchmark("nbbma", 0.05, "synthetic: near-100 % hit rate"); }

std::vector<DemandTrace> characterized_programs() {
  return {
      program(
          "stream", "synthetic: steadily high (NAS CG, SP)", [](int, Recipe& r) { return r.around(17, 2); },
          11),
      program(
          "compute", "synthetic: steadily low (NAS EP, water)", [](int, Recipe& r) { return r.around(2, 1); },
          12),
      program(
          "phases", "synthetic: 1.5 s phases, high then low (NAS MG)",
          [](int i, Recipe& r) { return r.around((i / 300) % 2 == 0 ? 20 : 4, 1); }, 13),
      program(
          "bursts", "synthetic: 5 ms bursts inside each quantum (Di Xu)",
          [](int, Recipe& r) { return r.uniform() < 0.35 ? r.around(25, 2) : r.around(2, 1); }, 14),
      program("irregular", "synthetic: levels lasting 1-3 quanta at random", irregular_levels(), 15),
      program(
          "medium", "synthetic: about 10/us drifting slowly (NAS LU, FT)",
          [](int i, Recipe& r) { return r.around(10 + 3 * std::sin(i / 160.0), 1.5); }, 16),
  };
}

std::vector<std::string> characterized_program_names() {
  std::vector<std::string> out;
  for (const auto& p : characterized_programs()) out.push_back(p.name);
  return out;
}

}  // namespace ncp2::sched
