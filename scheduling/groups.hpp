#pragma once
// The survey's four experiment groups (seed 003 §2.1, Antonopoulos et al.'s figures 1-2;
// docs/scheduling.md, "Experiment groups"): each application, on 2 processors,
//   alone           its bus bandwidth and time alone;
//   two instances   beside a second instance of itself;
//   with 2 BBMA     beside two microbenchmarks that only transfer (a bus already saturated);
//   with 2 nBBMA    beside two that hardly touch the bus.
// Every group fits on the 4 processors at once, so no policy is involved: they show what the
// contention model alone does, and are what its queueing constant was calibrated on.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "scheduling/node.hpp"

namespace ncp2::sched {

enum class Group { Alone, TwoInstances, WithBbma, WithNbbma };
inline constexpr Group kGroups[] = {Group::Alone, Group::TwoInstances, Group::WithBbma, Group::WithNbbma};
std::string group_name(Group group);  // "alone", "two instances", "with 2 BBMA", "with 2 nBBMA"

struct GroupRow {
  std::string application;
  Group group = Group::Alone;
  double bus_per_us = 0;  // transactions served per µs, the whole workload, over the run
  double slowdown = 1;    // the application's (mean of its instances) turnaround over its solo time
};

// The bus's calibration, as the groups report it.
struct BusCalibration {
  double capacity = 0;
  double thread_peak = 0;
  double queueing = 0;
  double two_bus_bound_threads_alone = 0;  // the calibration point: the survey's 23.31
  double bbma_alone = 0;
};

struct GroupsResult {
  NodeOptions options;
  BusCalibration calibration;
  std::vector<GroupRow> rows;  // application by application, groups in kGroups order
};

// Runs the groups for each application. Throws std::invalid_argument as run_node does.
GroupsResult run_groups(const std::vector<DemandTrace>& applications, const NodeOptions& options);

std::string groups_text(const GroupsResult& result);
nlohmann::json groups_json(const GroupsResult& result);

}  // namespace ncp2::sched
