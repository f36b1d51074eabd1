#include "workloads/registry.hpp"

#include <fmt/format.h>

namespace ncp2::workloads {

const std::vector<Workload>& all_workloads() {
  static const std::vector<Workload> all = {
      counter_workload(), phases_workload(), false_sharing_workload(), tsp_workload(),
      sor_workload(),     jacobi_workload(), matmul_workload(),        gauss_workload(),
      lu_workload(),      fft3d_workload(),  quicksort_workload(),     water_workload(),
      is_workload(),      barnes_workload(), barrier_workload()};
  return all;
}

const Workload& find_workload(std::string_view name) {
  std::vector<std::string> names;
  for (const auto& w : all_workloads()) {
    if (w.name == name) return w;
    names.push_back(w.name);
  }
  std::string list;
  for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
  const std::string guess = closest(name, names);
  throw WorkloadError(fmt::format("unknown workload '{}'{} (workloads: {}; see ncp2 workloads)", name,
                                  guess.empty() ? "" : fmt::format("; did you mean '{}'?", guess), list));
}

}  // namespace ncp2::workloads
