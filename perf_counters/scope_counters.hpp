#pragma once
// Per-scope totals of host counters in the measured time model (SPEC §5's rule: a user on real
// hardware gets, e.g., L1D references per scope). A dsm::ComputeMeter that wraps the model's own
// meter: around each stretch of native workload code (between two DSM entries) it reads a counter
// group on the emulator's thread and adds the stretch's counts to (node, scope), the scope being
// the one current when the stretch ends — where the measured model charges the stretch's time.
// Its reads are outside the inner meter's clock: read before the inner meter starts a stretch,
// after it ends one.
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "dsm/compute_meter.hpp"
#include "perf_counters/counter_store.hpp"
#include "perf_counters/model.hpp"

namespace ncp2::counters {

class CounterGroup;

class ScopeCounterMeter final : public dsm::ComputeMeter {
 public:
  // The scope a node's PP is in now (e.g. cluster.pp(n).attribution().scope).
  using ScopeOf = std::function<std::uint32_t(dsm::NodeId)>;

  // `events`: names as for `ncp2 counters` (empty: task-clock, page-faults and the default
  // hardware events). The group is opened on the first begin(), on the thread that runs the nodes.
  ScopeCounterMeter(dsm::ComputeMeter& inner, std::vector<std::string> events, ScopeOf scope_of);
  ~ScopeCounterMeter() override;

  void begin(dsm::NodeId node) override;
  emu::Duration end_stretch(dsm::NodeId node) override;
  void resume(dsm::NodeId node) override;
  void finish(dsm::NodeId node) override;
  // The counters are read on the emulator's thread, which does not run a program's code.
  [[nodiscard]] std::string set_external(dsm::NodeId /*node*/) override {
    return "counters per scope are read on the emulator's thread, and a program's node runs in its own "
           "process (use `ncp2 counters -- ./prog` for the process's totals)";
  }
  [[nodiscard]] emu::Duration external_duration(dsm::NodeId node, std::uint64_t tsc_ticks) override {
    return inner_.external_duration(node, tsc_ticks);
  }

  // Every requested event, counted or with the reason (empty before the first begin()).
  [[nodiscard]] const std::vector<EventStatus>& events() const { return events_; }
  // The totals of the counted events, by node and scope (node, scope, event order).
  [[nodiscard]] std::vector<ScopeCounterRow> rows() const;
  [[nodiscard]] std::uint64_t stretches() const { return stretches_; }

 private:
  void open_group();
  void mark(dsm::NodeId node);

  dsm::ComputeMeter& inner_;
  std::vector<std::string> names_;
  ScopeOf scope_of_;
  std::unique_ptr<CounterGroup> group_;
  std::vector<EventStatus> events_;
  std::vector<RawSample> stretch_start_;  // by node index
  std::vector<bool> in_stretch_;
  std::map<std::pair<int, std::uint32_t>, std::vector<std::optional<double>>> totals_;
  std::uint64_t stretches_ = 0;
};

}  // namespace ncp2::counters
