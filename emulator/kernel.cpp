#include "emulator/kernel.hpp"

#include <stdexcept>
#include <utility>

#include <fmt/format.h>
#include <boost/context/protected_fixedsize_stack.hpp>

#include "emulator/fiber_sanitizer.hpp"
#include "emulator/fiber_switch.hpp"

namespace ncp2::emu {

namespace bc = boost::context;
namespace san = fiber_sanitizer;

// Each emulated processor is a fiber: a stack of its own, entered and left with the kernel's own
// switch (fiber_switch.hpp). The event loop switches to it directly and it switches straight back:
// no scheduler, no clock reads, no locks, no condition variables in between.
struct Kernel::Fiber {
  // Where the fiber continues while it is suspended, and which fiber it is (for its entry).
  struct Switch : fiber_switch::Context {
    Kernel* kernel = nullptr;
    std::uint32_t index = 0;
  };
  Switch self;
  fiber_switch::Context to_kernel;  // where the event loop continues while the fiber runs
  std::string name;
  std::function<void()> body;
  std::string_view waiting_for = "not started";
  DescribeFn describe = nullptr;  // when set, describes what the fiber waits for (lazily)
  const void* describe_context = nullptr;
  bool finished = false;
  bool cancel = false;
  san::Context sanitizer;
  // A guard page below each stack turns an overflow into a fault instead of silent corruption.
  bc::protected_fixedsize_stack allocator;
  bc::stack_context stack{};

  explicit Fiber(std::size_t stack_bytes) : allocator(stack_bytes) {
    san::created(sanitizer);
    stack = allocator.allocate();
    sanitizer.stack_bottom = static_cast<const char*>(stack.sp) - stack.size;  // sp is the top
    sanitizer.stack_size = stack.size;
  }
  // Only when the fiber is not running: finished, or never started (its frames are then dead).
  ~Fiber() {
    san::stack_released(sanitizer.stack_bottom, sanitizer.stack_size);
    allocator.deallocate(stack);
    san::destroyed(sanitizer);
  }
  Fiber(const Fiber&) = delete;
  Fiber& operator=(const Fiber&) = delete;
};

Kernel::Kernel(KernelOptions options) : options_(std::move(options)) { queue_.reserve(1024); }

Kernel::~Kernel() { cancel_unfinished_fibers(); }

void Kernel::schedule_in_past(TimePoint t) const {
  // A time before zero is a sum that wrapped around: a model value, not the kernel, is at fault.
  if (t < kTimeZero)
    throw std::overflow_error(
        fmt::format("virtual time overflowed after {}: the run's times exceed what the emulator represents "
                    "(about 106 days); look for an extreme duration or bandwidth in the configuration",
                    format_time(now())));
  throw std::logic_error(
      fmt::format("event scheduled in the past: at {} while now is {}", format_time(t), format_time(now())));
}

FiberId Kernel::spawn(std::string name, std::function<void()> body) {
  if (in_fiber()) throw std::logic_error("Kernel::spawn must be called outside fibers");
  const auto index = static_cast<std::uint32_t>(fibers_.size());
  auto fiber = std::make_unique<Fiber>(options_.fiber_stack_bytes);
  fiber->name = std::move(name);
  fiber->body = std::move(body);
  fiber->self.kernel = this;
  fiber->self.index = index;
  fiber_switch::prepare(fiber->self, fiber->stack.sp, &Kernel::fiber_entry);
  fibers_.push_back(std::move(fiber));
  fiber_finished_.push_back(0);
  resume_at(FiberId{index}, now());
  return FiberId{index};
}

void Kernel::fiber_entry(fiber_switch::Context* /*from*/, fiber_switch::Context* self) {
  const auto& me = static_cast<const Fiber::Switch&>(*self);
  Kernel& kernel = *me.kernel;
  Fiber& f = *kernel.fibers_[me.index];
  san::entered(f.sanitizer);
  kernel.run_fiber_body(me.index);
  san::leave_fiber(f.sanitizer, true);
  fiber_switch::switch_to(f.self, f.to_kernel);
  __builtin_trap();  // a finished fiber is never resumed (Kernel::resume checks)
}

void Kernel::run_fiber_body(std::uint32_t index) {
  Fiber& f = *fibers_[index];
  if (!f.cancel) {
    f.waiting_for = "running";
    try {
      f.body();
    } catch (const FiberCancelled&) {
      // Torn down by the kernel: the stack is unwound, nothing else to do.
    } catch (...) {
      if (!pending_exception_) pending_exception_ = std::current_exception();
      stop_requested_ = true;
    }
  }
  f.finished = true;
  fiber_finished_[index] = 1;
  f.waiting_for = "finished";
  f.describe = nullptr;
}

void Kernel::suspend_current(std::string_view reason) {
  if (!in_fiber()) throw std::logic_error("Kernel::suspend_current called outside a fiber");
  Fiber& f = *fibers_[current_];
  if (f.cancel) throw FiberCancelled{};
  f.waiting_for = reason;
  f.describe = nullptr;
  san::leave_fiber(f.sanitizer, false);
  fiber_switch::switch_to(f.self, f.to_kernel);
  san::entered(f.sanitizer);
  if (f.cancel) throw FiberCancelled{};
}

void Kernel::suspend_current(DescribeFn describe, const void* context) {
  if (!in_fiber()) throw std::logic_error("Kernel::suspend_current called outside a fiber");
  Fiber& f = *fibers_[current_];
  if (f.cancel) throw FiberCancelled{};
  f.describe = describe;
  f.describe_context = context;
  san::leave_fiber(f.sanitizer, false);
  fiber_switch::switch_to(f.self, f.to_kernel);
  san::entered(f.sanitizer);
  f.describe = nullptr;
  if (f.cancel) throw FiberCancelled{};
}

void Kernel::resume(FiberId id) {
  const auto index = static_cast<std::uint32_t>(id);
  // One predictable branch for the three misuses on the switch path (the wake benchmark's).
  if (in_fiber() || index >= fibers_.size() || fibers_[index]->finished) [[unlikely]]
    bad_resume(index);
  Fiber& f = *fibers_[index];
  queue_.settle();  // the fiber may look at the pending events (try_advance)
  current_ = index;
  san::leave_main(f.sanitizer);
  fiber_switch::switch_to(f.to_kernel, f.self);
  san::back_in_main();
  current_ = kNoFiber;
}

void Kernel::bad_resume(std::uint32_t index) const {
  if (in_fiber()) throw std::logic_error("Kernel::resume called from inside a fiber; use resume_at");
  if (index >= fibers_.size()) throw std::out_of_range(fmt::format("resume of unknown fiber {}", index));
  if (handoff_ != kNoFiber && !fibers_[index]->finished)
    throw std::logic_error(
        fmt::format("resume of fiber '{}' after another resume in the same event", fibers_[index]->name));
  throw std::logic_error(fmt::format("resume of finished fiber '{}'", fibers_[index]->name));
}

void Kernel::resume_at(FiberId id, TimePoint t) {
  at(t, [this, id] { resume_after_event(id); });
}

void Kernel::at_function(TimePoint t, std::function<void()> fn) {
  std::uint32_t slot;
  if (free_function_slots_.empty()) {
    slot = static_cast<std::uint32_t>(function_slots_.size());
    function_slots_.emplace_back();
  } else {
    slot = free_function_slots_.back();
    free_function_slots_.pop_back();
  }
  function_slots_[slot] = std::move(fn);
  at(t, [this, slot] {
    std::function<void()> run = std::move(function_slots_[slot]);
    function_slots_[slot] = nullptr;
    free_function_slots_.push_back(slot);
    run();
  });
}

const std::string& Kernel::fiber_name(FiberId id) const {
  return fibers_.at(static_cast<std::size_t>(id))->name;
}
bool Kernel::fiber_finished(FiberId id) const { return fibers_.at(static_cast<std::size_t>(id))->finished; }

RunResult Kernel::run(TimePoint limit) {
  if (in_fiber()) throw std::logic_error("Kernel::run called from inside a fiber");
  RunResult result;
  stop_requested_ = false;
  const std::int64_t limit_ps = to_ps(limit);
  try {
    while (!queue_.empty() && !stop_requested_) {
      if (queue_.top_time() > limit_ps) {
        result.status = RunStatus::TimeLimit;
        break;
      }
      if ((events_processed_ & 1023) == 0) {
        if (options_.stop_flag && options_.stop_flag->load(std::memory_order_relaxed)) {
          stop_requested_ = true;
          break;
        }
        if (options_.on_poll) options_.on_poll();
      }
      const EventQueue::Due due = queue_.take_due();
      now_ps_ = due.time_ps;
      ++events_processed_;
      if (options_.trace_hash) {
        trace_.mix(static_cast<std::uint64_t>(due.time_ps));
        trace_.mix(due.seq);
      }
      // Run in place (the slot is reused only after release), then free the slot.
      const Event& e = queue_.payload(due.slot);
      e.invoke(e);
      queue_.finish_due(due.slot);
      if (handoff_ != kNoFiber) {
        // resume_after_event: switched to here, in the loop (see there).
        Fiber& f = *fibers_[handoff_];
        current_ = handoff_;
        handoff_ = kNoFiber;
        san::leave_main(f.sanitizer);
        fiber_switch::switch_to(f.to_kernel, f.self);
        san::back_in_main();
        current_ = kNoFiber;
      }
    }
  } catch (...) {
    queue_.settle();
    handoff_ = kNoFiber;
    if (!pending_exception_) pending_exception_ = std::current_exception();
  }
  if (pending_exception_) {
    auto ex = pending_exception_;
    pending_exception_ = nullptr;
    cancel_unfinished_fibers();
    std::rethrow_exception(ex);
  }
  if (stop_requested_ && result.status == RunStatus::Completed) result.status = RunStatus::Stopped;
  result.end_time = now();
  result.events = events_processed_;
  for (const auto& f : fibers_)
    if (!f->finished)
      result.blocked.push_back(
          {f->name, f->describe ? f->describe(f->describe_context) : std::string(f->waiting_for)});
  if (result.status == RunStatus::Completed && !result.blocked.empty()) {
    result.status = RunStatus::Deadlock;
    result.diagnosis = fmt::format("deadlock at {}: no event is pending and {} processor(s) are blocked:",
                                   format_time(now()), result.blocked.size());
    for (const auto& b : result.blocked) result.diagnosis += fmt::format("\n  {}: {}", b.name, b.waiting_for);
  } else if (result.status == RunStatus::TimeLimit) {
    result.diagnosis = fmt::format("stopped at the time limit {}", format_time(limit));
  } else if (result.status == RunStatus::Stopped) {
    result.diagnosis = fmt::format("stopped on request at {}", format_time(now()));
  }
  return result;
}

void Kernel::cancel_unfinished_fibers() {
  if (in_fiber()) return;  // cannot switch from inside a fiber; the destructor will do it
  for (std::uint32_t i = 0; i < fibers_.size(); ++i) {
    Fiber& f = *fibers_[i];
    if (f.finished) continue;
    // Resumed with the cancel flag, the fiber throws FiberCancelled from its suspension point
    // (or skips its body if it never started) and unwinds to its end.
    f.cancel = true;
    current_ = i;
    san::leave_main(f.sanitizer);
    fiber_switch::switch_to(f.to_kernel, f.self);
    san::back_in_main();
    current_ = kNoFiber;
  }
}

}  // namespace ncp2::emu
