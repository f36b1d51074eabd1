#include "scheduling/groups.hpp"

#include <fmt/format.h>

#include "scheduling/experiment.hpp"
#include "scheduling/programs.hpp"

namespace ncp2::sched {

namespace {

std::vector<DemandTrace> workload_of_group(const DemandTrace& application, Group group) {
  std::vector<DemandTrace> jobs;
  if (group == Group::WithBbma) jobs = {bbma_trace(), bbma_trace()};
  if (group == Group::WithNbbma) jobs = {nbbma_trace(), nbbma_trace()};
  const int instances = group == Group::TwoInstances ? 2 : 1;
  for (int i = 1; i <= instances; ++i) jobs.push_back(instance_of(application, i));  // offset as in the sets
  return jobs;
}

GroupRow run_group(const DemandTrace& application, Group group, const NodeOptions& options) {
  const NodeRun run = run_node(workload_of_group(application, group), Policy{}, options);
  double transactions = 0;
  double us = 0;
  for (const auto& s : run.bus) {
    transactions += s.served.per_us() * to_microseconds(s.length);
    us += to_microseconds(s.length);
  }
  double slowdown = 0;
  int instances = 0;
  for (const auto& job : run.jobs)
    if (!job.endless) {
      slowdown += to_seconds(job.turnaround) / to_seconds(job.solo);
      ++instances;
    }
  return {application.name, group, us > 0 ? transactions / us : 0, slowdown / std::max(instances, 1)};
}

}  // namespace

std::string group_name(Group group) {
  switch (group) {
    case Group::Alone:
      return "alone";
    case Group::TwoInstances:
      return "two instances";
    case Group::WithBbma:
      return "with 2 BBMA";
    case Group::WithNbbma:
      return "with 2 nBBMA";
  }
  return "?";
}

GroupsResult run_groups(const std::vector<DemandTrace>& applications, const NodeOptions& options) {
  check_node_options(options);
  GroupsResult out;
  out.options = options;
  const ContentionModel model(options.capacity, options.peak_per_thread, options.queueing);
  out.calibration = {options.capacity.per_us(), options.peak_per_thread.per_us(), options.queueing,
                     model.bus_bound_solo(2).per_us(), bbma_trace().demand.front().per_us()};
  for (const auto& application : applications)
    for (const Group group : kGroups) out.rows.push_back(run_group(application, group, options));
  return out;
}

std::string groups_text(const GroupsResult& result) {
  const BusCalibration& c = result.calibration;
  std::string out = fmt::format(
      "ncp2 schedule --experiment groups: the survey's four groups (seed 003 section 2.1), each application "
      "on 2 of {} processors\n"
      "bus {:g} transactions/us; memory latency 1 + {:.4f} U / (1 - U) at utilization U; a thread issues "
      "{:g}/us on an idle bus\n"
      "calibration point: two threads that only transfer draw {:.2f}/us alone (the survey's most demanding "
      "application: 23.31); one BBMA draws {:.2f}/us\n"
      "per group: bus transactions/us of the whole workload, and the application's slowdown over its solo "
      "time\n\n{:<12}",
      result.options.processors, c.capacity, c.queueing, c.thread_peak, c.two_bus_bound_threads_alone,
      c.bbma_alone, "application");
  for (const Group g : kGroups) out += fmt::format(" {:>20}", group_name(g));
  out += "\n";
  for (std::size_t i = 0; i < result.rows.size(); i += std::size(kGroups)) {
    out += fmt::format("{:<12}", result.rows[i].application);
    for (std::size_t k = 0; k < std::size(kGroups) && i + k < result.rows.size(); ++k)
      out += fmt::format(" {:>11.2f} {:>7.2f}x", result.rows[i + k].bus_per_us, result.rows[i + k].slowdown);
    out += "\n";
  }
  return out;
}

nlohmann::json groups_json(const GroupsResult& result) {
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& r : result.rows)
    rows.push_back({{"application", r.application},
                    {"group", group_name(r.group)},
                    {"bus_per_us", r.bus_per_us},
                    {"slowdown", r.slowdown}});
  const BusCalibration& c = result.calibration;
  return {{"groups", rows},
          {"calibration",
           {{"capacity", c.capacity},
            {"thread_peak", c.thread_peak},
            {"queueing", c.queueing},
            {"two_bus_bound_threads_alone", c.two_bus_bound_threads_alone},
            {"bbma_alone", c.bbma_alone}}}};
}

}  // namespace ncp2::sched
