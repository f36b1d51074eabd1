#pragma once
// Every workload the emulator knows, by name.
#include <string_view>
#include <vector>

#include "workloads/workload.hpp"

namespace ncp2::workloads {

// In registration order (the order `ncp2 workloads` lists them).
const std::vector<Workload>& all_workloads();
// Throws WorkloadError naming the unknown workload, a suggestion and the available ones.
const Workload& find_workload(std::string_view name);

// One function per workload, each in its own file.
Workload counter_workload();        // counter.cpp
Workload barrier_workload();        // barrier.cpp
Workload phases_workload();         // phases.cpp
Workload false_sharing_workload();  // false_sharing.cpp
Workload tsp_workload();            // tsp.cpp
Workload quicksort_workload();      // quicksort.cpp
Workload water_workload();          // water.cpp
Workload is_workload();             // is.cpp
Workload barnes_workload();         // barnes.cpp
Workload sor_workload();            // sor.cpp
Workload jacobi_workload();         // jacobi.cpp
Workload matmul_workload();         // matmul.cpp
Workload gauss_workload();          // gauss.cpp
Workload lu_workload();             // lu.cpp
Workload fft3d_workload();          // fft3d.cpp

}  // namespace ncp2::workloads
