#pragma once
// The main processor (PP) of a node: a fiber running workload code, which can compute for a
// duration, wait until woken, and be interrupted. An interrupt's handler runs after the
// configured interrupt overhead (and after any handler already running: handlers do not nest);
// a computation it preempts finishes later by exactly the handlers' durations plus overheads.
#include <algorithm>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>
#include "emulator/ring_queue.hpp"

#include "emulator/ids.hpp"
#include "emulator/inline_function.hpp"
#include "emulator/kernel.hpp"
#include "emulator/memory_bus.hpp"
#include "emulator/probe.hpp"
#include "emulator/work_context.hpp"

namespace ncp2::emu {

enum class PpState : std::uint8_t { NotStarted, Running, Computing, Waiting, Finished };
std::string_view to_string(PpState s);

struct ProcessorStats {
  Duration compute{0};   // time spent in compute() (excluding preemption)
  Duration handlers{0};  // time spent in interrupt handlers
  Duration interrupt_overhead{0};
  std::uint64_t interrupts = 0;
  std::uint64_t waits = 0;
};

class Processor {
 public:
  using InterruptHandler = InlineFunction<void(WorkContext&), 64>;

  Processor(Kernel& kernel, NodeId node, std::string name, Duration interrupt_overhead, MemoryBus& bus,
            double copy_bandwidth);
  Processor(const Processor&) = delete;
  Processor& operator=(const Processor&) = delete;

  // Starts the workload fiber at the current virtual time.
  void start(std::function<void()> body);

  // ---- called by the workload fiber of this processor
  void compute(Duration d);
  // Suspends until wake(). A wake() that came earlier, while the PP was not waiting, is
  // remembered once (like a binary semaphore): callers loop on their condition. `what` names the
  // wait in deadlock diagnoses; it must stay valid while waiting (a literal, or caller-owned).
  void wait(std::string_view what);
  // The same, with what it waits for described lazily (see Kernel::suspend_current).
  void wait(Kernel::DescribeFn describe, const void* context);

  // ---- called from events (CP, network) or other processors
  void wake();
  // `handler`: an InterruptHandler or a small trivially copyable callable, built in place in the
  // pending queue (or in a parking slot until `when`) rather than copied through temporaries.
  template <class F>
  void interrupt(F&& handler, HandlerTag tag = {}) {
    PendingHandler& slot = pending_.push_slot();
    slot.handler.emplace(std::forward<F>(handler));
    slot.tag = tag;
    raised(tag);
  }
  // Raises the interrupt at a later time `when` (>= now) without allocating.
  template <class F>
  void interrupt_at(TimePoint when, F&& handler, HandlerTag tag = {}) {
    if (when <= kernel_.now()) {
      interrupt(std::forward<F>(handler), tag);
      return;
    }
    const std::uint32_t slot = park_slot();
    parked_[slot].handler.emplace(std::forward<F>(handler));
    parked_[slot].tag = tag;
    raise_parked_at(when, slot);
  }

  // Holds the interrupt until `when` or until release_deferred(), whichever comes first: a real
  // node's server waits for the computing program's core, or for the program to block in a
  // protocol entry (pp.busy_handler_delay).
  template <class F>
  void interrupt_deferred(TimePoint when, F&& handler, HandlerTag tag = {}) {
    const std::uint32_t slot = park_slot();
    parked_[slot].handler.emplace(std::forward<F>(handler));
    parked_[slot].tag = tag;
    deferred_.push_back(slot);
    raise_deferred_at(when, slot, parked_[slot].generation);
  }
  // Raises every deferred interrupt now, in arrival order.
  void release_deferred();

  // ---- attribution of the PP's time (for the profiler)
  void attach_probe(ActivityProbe* probe) { probe_ = probe; }
  [[nodiscard]] const Attribution& attribution() const { return attribution_; }
  // The scope of the PP's last stretch of application code (Comp): what a node that made others
  // wait was doing before it reached the synchronization (its attribution by then is the scope
  // of the call, e.g. the time step around both).
  [[nodiscard]] std::uint32_t worked_scope() const { return worked_scope_; }
  void set_scope(std::uint32_t scope) {
    if (scope != attribution_.scope) {
      note(kernel_.now());
      attribution_.scope = scope;
    }
  }
  void set_operation(std::uint8_t operation) {
    if (operation != attribution_.operation) {
      note(kernel_.now());
      attribution_.operation = operation;
    }
  }
  void set_in_wait(bool in_wait) {
    if (in_wait != attribution_.in_wait) {
      note(kernel_.now());
      attribution_.in_wait = in_wait;
    }
  }

  [[nodiscard]] NodeId node() const { return node_; }
  [[nodiscard]] const std::string& name() const { return name_; }
  [[nodiscard]] PpState state() const { return state_; }
  // True while handlers are queued or running (the PP is not available to its fiber).
  [[nodiscard]] bool in_interrupt() const { return handlers_active_; }
  [[nodiscard]] TimePoint finish_time() const { return finish_time_; }
  // When the node's protocol server last ran: the end of the last interrupt handler, or the last
  // protocol entry of the PP's own (note_server_active: on a real node its agent runs them).
  [[nodiscard]] TimePoint server_active_at() const { return std::max(server_active_at_, handlers_free_at_); }
  void note_server_active() {
    server_active_at_ = std::max(server_active_at_, kernel_.now());
    if (!deferred_.empty()) release_deferred();
  }
  [[nodiscard]] const ProcessorStats& stats() const { return stats_; }
  [[nodiscard]] MemoryBus& bus() const { return *bus_; }
  // Handlers queued behind a running one are served by the same interrupt, without a second
  // entry overhead: a SIGIO handler reads its socket until it is empty (pp.drain_interrupts).
  void drain_queued_interrupts(bool drain) { queued_overhead_ = drain ? Duration{0} : interrupt_overhead_; }
  [[nodiscard]] double copy_bandwidth() const { return copy_bandwidth_; }

 private:
  void require_own_fiber(std::string_view what) const {
    if (!started_ || !kernel_.in_fiber() || kernel_.current_fiber() != fiber_) [[unlikely]]
      not_own_fiber(what);
  }
  [[noreturn]] void not_own_fiber(std::string_view what) const;
  void raised(HandlerTag tag);  // after a handler entered pending_
  std::uint32_t park_slot();
  void raise_parked_at(TimePoint when, std::uint32_t slot);
  void raise_deferred_at(TimePoint when, std::uint32_t slot, std::uint64_t generation);
  void raise_deferred(std::uint32_t slot);
  template <class Suspend>
  void block_until_woken(Suspend suspend);
  void schedule_compute_end(TimePoint end);
  void run_handler();
  void resume_fiber() { kernel_.resume_after_event(fiber_); }  // an event's last action
  void schedule_resume(TimePoint at);
  // Ends the current span at `t` (reporting it to the probe) and starts the next one there.
  void note(TimePoint t) {
    if (t <= span_start_) return;
    if (activity_ == PpActivity::Compute && attribution_.operation == 0 && !attribution_.in_wait)
      worked_scope_ = attribution_.scope;
    if (probe_) probe_->pp_span(node_, span_start_, t, activity_, attribution_, span_tag_);
    span_start_ = t;
  }
  void set_activity(TimePoint t, PpActivity activity, HandlerTag tag = {}) {
    note(t);
    activity_ = activity;
    span_tag_ = tag;
  }
  [[nodiscard]] PpActivity fiber_activity() const;

  Kernel& kernel_;
  NodeId node_;
  std::string name_;
  Duration interrupt_overhead_;
  Duration queued_overhead_;   // for a handler queued behind another (0 when the interrupt drains)
  Duration current_overhead_;  // the overhead of the handler scheduled next
  MemoryBus* bus_;
  double copy_bandwidth_;
  FiberId fiber_{};
  bool started_ = false;
  PpState state_ = PpState::NotStarted;

  // compute(): the end is scheduled while the PP runs the computation; while handlers run it
  // is suspended with `compute_remaining_` left, and the last handler schedules the end.
  TimePoint compute_end_ = kTimeZero;
  Duration compute_remaining_{0};
  std::uint64_t compute_generation_ = 0;

  // wait()/wake()
  bool wake_token_ = false;
  bool wake_scheduled_ = false;
  bool wake_deferred_ = false;

  // Interrupts. Only the head of `pending_` has a start event scheduled; each handler, when it
  // runs, knows its end and schedules the next one (or the return to the fiber's work).
  bool handlers_active_ = false;
  TimePoint handlers_free_at_ = kTimeZero;  // end of the last handler that ran
  struct PendingHandler {
    InterruptHandler handler;
    HandlerTag tag;
    std::uint64_t generation = 0;  // of a parked slot: a deferred one's timer is void once released
  };
  RingQueue<PendingHandler> pending_;
  std::vector<PendingHandler> parked_;   // interrupt_at() handlers waiting for their time
  std::vector<std::uint32_t> deferred_;  // parked slots of interrupt_deferred(), in arrival order
  std::vector<std::uint32_t> free_parked_;

  TimePoint finish_time_ = kTimeZero;
  TimePoint server_active_at_ = kTimeZero;  // see server_active_at()
  ProcessorStats stats_;

  // attribution spans
  ActivityProbe* probe_ = nullptr;
  Attribution attribution_;
  std::uint32_t worked_scope_ = 0;  // see worked_scope()
  PpActivity activity_ = PpActivity::Compute;
  HandlerTag span_tag_;
  TimePoint span_start_ = kTimeZero;
};

}  // namespace ncp2::emu
