#pragma once
// The travelling-salesman instance of the tsp workload, and its sequential exact solution: shared
// by the workload (its verification) and the tests (checked against brute force on tiny instances).
#include <cstdint>
#include <vector>

namespace ncp2::workloads::tsp {

// An index computed in int (cities, tour positions: small and never negative) as a size.
constexpr std::size_t index_of(int i) { return static_cast<std::size_t>(i); }

inline constexpr int kMaxCities = 20;  // Held-Karp's table (2^(n-1) x n) must fit in memory

// Cities drawn from the seed on a 1000 x 1000 grid; distances rounded Euclidean, symmetric.
struct Instance {
  int cities = 0;
  std::vector<std::int32_t> distance;  // row-major cities x cities
  [[nodiscard]] std::int32_t d(int from, int to) const { return distance[index_of(from * cities + to)]; }
};

Instance make_instance(int cities, std::uint64_t seed);

// The length of an optimal tour (Held-Karp dynamic programming, O(2^n n^2)), for 2 <= n <= kMaxCities.
std::int64_t optimal_tour_length(const Instance& instance);

}  // namespace ncp2::workloads::tsp
