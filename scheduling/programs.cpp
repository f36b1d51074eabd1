#include "scheduling/programs.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>

#include "emulator/mix64.hpp"
#include "scheduling/contention.hpp"

namespace ncp2::sched {

namespace {

constexpr int kProgramSteps = 1600;  // 8 s of solo time at 5 ms
constexpr int kProgramThreads = 2;

// A fixed portable generator (splitmix64): the traces are the same on every machine.
class Recipe {
 public:
  explicit Recipe(std::uint64_t seed) : state_(seed) {}
  double uniform() {  // [0, 1): splitmix64's sequence
    const std::uint64_t x = emu::mix64(state_);
    state_ += 0x9E3779B97F4A7C15ULL;
    return emu::unit_interval(x);
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

// Irregular fluctuations at the scale of a quantum (Di Xu et al.: "quite common in real
// applications"; the survey: what Latest Quantum is sensitive to in set B). Each stretch of
// kDipSteps (about one 100 ms quantum alone) is, with probability `chance`, a dip: the program
// asks only `low` (an I/O wait, a serial section, a phase of cache reuse). Drawn from their own
// generator, so the rest of the recipe is the same with or without them.
constexpr int kDipSteps = 20;
std::function<double(int, Recipe&)> with_dips(std::function<double(int, Recipe&)> base, double chance,
                                              double low, std::uint64_t seed) {
  return
      [base = std::move(base), chance, low, dips = Recipe(seed), dipping = false](int i, Recipe& r) mutable {
        if (i % kDipSteps == 0) dipping = dips.uniform() < chance;
        const double level = base(i, r);
        return dipping ? r.around(low, 0.5) : level;
      };
}

}  // namespace

// A BBMA thread does nothing but transfer: alone it draws what the calibrated bus lets one such
// thread draw (about 13.9/µs; two of them and a saturating application fill the bus).
DemandTrace bbma_trace() {
  const ContentionModel survey(Bandwidth(kSurveyBusCapacity), Bandwidth(kDefaultThreadPeak),
                               survey_queueing());
  return microbenchmark("bbma", survey.bus_bound_solo(1).per_us(),
                        "synthetic: near-0 % hit rate, only transfers");
}
DemandTrace nbbma_trace() { return microbenchmark("nbbma", 0.05, "synthetic: near-100 % hit rate"); }

std::vector<DemandTrace> characterized_programs() {
  return {
      program(
          "stream", "synthetic: steadily high, the most demanding (NAS CG, SP)",
          [](int, Recipe& r) { return r.around(22, 1); }, 11),
      program(
          "compute", "synthetic: steadily low (NAS EP, water)", [](int, Recipe& r) { return r.around(2, 1); },
          12),
      program(
          "phases", "synthetic: 1.5 s phases, high then low (NAS MG)",
          [](int i, Recipe& r) { return r.around((i / 300) % 2 == 0 ? 20 : 4, 1); }, 13),
      program(
          "bursts", "synthetic: 5 ms bursts inside each quantum (Di Xu)",
          [](int, Recipe& r) { return r.uniform() < 0.35 ? r.around(22, 2) : r.around(2, 1); }, 14),
      program("irregular", "synthetic: high, with dips of about a quantum at irregular times",
              with_dips([](int, Recipe& r) { return r.around(21, 1); }, 0.25, 3, 25), 15),
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
