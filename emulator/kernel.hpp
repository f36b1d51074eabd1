#pragma once
// The discrete-event kernel: virtual time, the pending-event set, and the emulated processors'
// fibers. Everything in the emulator happens either in an event (run by the kernel loop on the
// thread's main context) or in a fiber that the kernel resumed at the current virtual time.
// Exactly one of them runs at a time, so a run is a deterministic function of its inputs.
#include <atomic>
#include <cstdint>
#include <exception>
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "emulator/event_queue.hpp"
#include "emulator/time.hpp"

namespace ncp2::emu {

namespace fiber_switch {
struct Context;
}

// Identifies a fiber spawned by a Kernel (index in spawn order).
enum class FiberId : std::uint32_t {};

// Thrown inside a fiber that the kernel tears down before it finished (deadlock, time limit,
// error elsewhere). It unwinds the fiber's stack so its RAII objects are released; workload code
// must not swallow it.
struct FiberCancelled {};

enum class RunStatus { Completed, Deadlock, TimeLimit, Stopped };

struct BlockedFiber {
  std::string name;
  std::string waiting_for;
};

struct RunResult {
  RunStatus status = RunStatus::Completed;
  TimePoint end_time = kTimeZero;
  std::uint64_t events = 0;
  std::vector<BlockedFiber> blocked;  // filled on Deadlock (and TimeLimit/Stopped)
  std::string diagnosis;              // human-readable explanation when not Completed
};

// A running digest of what happened, to prove two runs identical (tests) without storing traces.
class TraceHash {
 public:
  void mix(std::uint64_t v) {
    // FNV-1a over 64-bit words; fast and good enough to detect any divergence.
    h_ ^= v;
    h_ *= 0x100000001b3ULL;
  }
  [[nodiscard]] std::uint64_t value() const { return h_; }

 private:
  std::uint64_t h_ = 0xcbf29ce484222325ULL;
};

struct KernelOptions {
  std::size_t fiber_stack_bytes = std::size_t{256} * 1024;
  // Fast-forward computation that no event can interrupt (see try_advance); off only to test
  // that it changes nothing.
  bool fast_forward = true;
  // Polled every 1024 events: when it becomes true the run stops (RunStatus::Stopped). For
  // SIGINT/SIGTERM handlers, which may only set an atomic flag.
  const std::atomic<bool>* stop_flag = nullptr;
  // Called every 1024 events and every 1024 fast-forwarded computations (so a one-node run that
  // only computes is polled too): progress reports. Must not schedule events or switch fibers.
  std::function<void()> on_poll;
  bool trace_hash = false;  // mix every dispatched event and every trace() call into a digest
};

class Kernel {
 public:
  explicit Kernel(KernelOptions options = {});
  ~Kernel();
  Kernel(const Kernel&) = delete;
  Kernel& operator=(const Kernel&) = delete;

  [[nodiscard]] TimePoint now() const { return at_ps(now_ps_); }

  // Schedules `fn` to run at time `t` (>= now). Events at equal times run in scheduling order.
  template <class F>
  void at(TimePoint t, F&& fn) {
    const std::int64_t tps = to_ps(t);
    if (tps < now_ps_) schedule_in_past(t);
    queue_.emplace(tps, next_seq_++, std::forward<F>(fn));
  }
  template <class F>
  void after(Duration d, F&& fn) {
    at(now() + d, std::forward<F>(fn));
  }
  // For the rare callables that are large or own resources: kept in a kernel-owned slot.
  void at_function(TimePoint t, std::function<void()> fn);

  // Creates a fiber that starts running `body` at the current virtual time (time zero before
  // run()). Must be called from outside any fiber (setup code or an event).
  FiberId spawn(std::string name, std::function<void()> body);

  // From inside a fiber: suspend until some event calls resume() on it. `reason` is kept, without
  // a copy, for the deadlock diagnosis ("waiting for lock 3"): it must stay valid until the fiber
  // is resumed (a literal, or a string the caller owns). Throws FiberCancelled on teardown.
  void suspend_current(std::string_view reason);
  // The same, with the reason described only if a diagnosis needs it (hot paths: no formatting
  // per wait). `describe(context)` must stay callable until the fiber is resumed.
  using DescribeFn = std::string (*)(const void* context);
  void suspend_current(DescribeFn describe, const void* context);
  // From an event (main context): switch to the suspended fiber now; returns when it suspends
  // again or finishes.
  void resume(FiberId id);
  // From an event, as its last action: switch to the suspended fiber as soon as the event
  // returns, before the next event (the same order as resume() at the event's end). The kernel
  // loop switches itself, so nothing returns across the switch on the loop's side: fewer
  // mispredicted returns than resume() from inside the event's callable.
  void resume_after_event(FiberId id) {
    const auto index = static_cast<std::uint32_t>(id);
    if (in_fiber() || handoff_ != kNoFiber || index >= fiber_finished_.size() || fiber_finished_[index])
        [[unlikely]]
      bad_resume(index);
    handoff_ = index;
  }
  // From inside a fiber: if no event is due before now + d, advance the clock by d and return
  // true — the fiber keeps running, no switch needed. Exact: nothing else could have happened in
  // between. Otherwise returns false and the caller must suspend until now + d.
  bool try_advance(Duration d) {
    const std::int64_t target = now_ps_ + d.count();
    if (!queue_.empty() && queue_.top_time() <= target) return false;  // (top_time settles)
    now_ps_ = target;
    if ((++fast_forwards_ & 1023) == 0 && options_.on_poll) options_.on_poll();
    return true;
  }
  // From anywhere: resume the fiber in an event at time `t`.
  void resume_at(FiberId id, TimePoint t);

  [[nodiscard]] bool in_fiber() const { return current_ != kNoFiber; }
  [[nodiscard]] bool fast_forward() const { return options_.fast_forward; }
  [[nodiscard]] FiberId current_fiber() const { return FiberId{current_}; }
  [[nodiscard]] const std::string& fiber_name(FiberId id) const;
  [[nodiscard]] bool fiber_finished(FiberId id) const;
  [[nodiscard]] std::size_t fiber_count() const { return fibers_.size(); }

  // Runs events until none is left, the time limit passes, or stop() is called.
  // Rethrows the first exception escaping an event or a fiber.
  RunResult run(TimePoint limit = TimePoint::max());
  void stop() { stop_requested_ = true; }
  // Unwinds every fiber that has not finished (FiberCancelled from its suspension point). The
  // destructor does it too, but an owner whose fibers' unwinding touches objects that die before
  // the kernel (the cluster, the DSM runtime) must call it while they are alive. Outside fibers.
  void cancel_unfinished_fibers();

  [[nodiscard]] std::size_t pending_events() const { return queue_.size(); }
  [[nodiscard]] std::uint64_t events_processed() const { return events_processed_; }

  // Mixes a model-level fact (message delivered, command executed) into the trace digest.
  void trace(std::uint64_t tag, std::uint64_t a = 0, std::uint64_t b = 0) {
    if (options_.trace_hash) {
      trace_.mix(static_cast<std::uint64_t>(now_ps_));
      trace_.mix(tag);
      trace_.mix(a);
      trace_.mix(b);
    }
  }
  [[nodiscard]] std::uint64_t trace_digest() const { return trace_.value(); }

 private:
  static constexpr std::uint32_t kNoFiber = std::numeric_limits<std::uint32_t>::max();

  struct Fiber;
  [[noreturn]] void schedule_in_past(TimePoint t) const;
  [[noreturn]] void bad_resume(std::uint32_t index) const;
  // The first function of every fiber's stack (a fiber_switch::Entry); never returns.
  static void fiber_entry(fiber_switch::Context* from, fiber_switch::Context* self);
  void run_fiber_body(std::uint32_t index);

  KernelOptions options_;
  EventQueue queue_;
  std::int64_t now_ps_ = 0;
  std::uint64_t next_seq_ = 0;
  std::uint64_t events_processed_ = 0;
  std::uint64_t fast_forwards_ = 0;
  bool stop_requested_ = false;
  std::uint32_t current_ = kNoFiber;
  std::uint32_t handoff_ = kNoFiber;  // resume_after_event's fiber
  std::vector<std::unique_ptr<Fiber>> fibers_;
  std::vector<std::uint8_t> fiber_finished_;  // per fiber, for the checks inlined in resume_after_event
  std::vector<std::function<void()>> function_slots_;
  std::vector<std::uint32_t> free_function_slots_;
  std::exception_ptr pending_exception_;
  TraceHash trace_;
};

}  // namespace ncp2::emu
