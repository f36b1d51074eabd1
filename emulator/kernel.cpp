#include "emulator/kernel.hpp"

#include <stdexcept>

#include <boost/fiber/algo/algorithm.hpp>
#include <boost/fiber/all.hpp>
#include <boost/fiber/context.hpp>
#include <boost/fiber/scheduler.hpp>
#include <fmt/format.h>

namespace ncp2::emu {

namespace {

namespace bf = boost::fibers;

// Boost.Fiber scheduling algorithm for the kernel: a plain FIFO ready queue, no locks, no
// condition variables and never any sleeping. The kernel decides who runs: it marks exactly one
// fiber ready and yields the main context, which queues behind it; when that fiber suspends,
// the main context (the event loop) is the next ready context.
class KernelScheduling final : public bf::algo::algorithm {
 public:
  void awakened(bf::context* ctx) noexcept override { ctx->ready_link(ready_); }
  bf::context* pick_next() noexcept override {
    if (ready_.empty()) return nullptr;
    bf::context* next = &ready_.front();
    ready_.pop_front();
    return next;
  }
  [[nodiscard]] bool has_ready_fibers() const noexcept override { return !ready_.empty(); }
  // Nothing to wait for: the event loop is always ready when a fiber suspends.
  void suspend_until(std::chrono::steady_clock::time_point const&) noexcept override {}
  void notify() noexcept override {}

 private:
  bf::scheduler::ready_queue_type ready_;
};

void install_scheduling_once() {
  thread_local bool installed = false;
  if (!installed) {
    bf::use_scheduling_algorithm<KernelScheduling>();
    installed = true;
  }
}

}  // namespace

struct Kernel::Fiber {
  std::string name;
  std::function<void()> body;
  bf::context* context = nullptr;
  std::unique_ptr<bf::fiber> handle;
  std::string waiting_for = "not started";
  bool finished = false;
  bool cancel = false;
};

Kernel::Kernel(KernelOptions options) : options_(options) {
  install_scheduling_once();
  queue_.reserve(1024);
}

Kernel::~Kernel() {
  cancel_unfinished_fibers();
  for (auto& f : fibers_)
    if (f->handle && f->handle->joinable()) f->handle->join();
}

void Kernel::schedule_in_past(TimePoint t) const {
  throw std::logic_error(fmt::format("event scheduled in the past: at {} while now is {}",
                                     format_time(t), format_time(now())));
}

FiberId Kernel::spawn(std::string name, std::function<void()> body) {
  if (in_fiber()) throw std::logic_error("Kernel::spawn must be called outside fibers");
  const auto index = static_cast<std::uint32_t>(fibers_.size());
  auto fiber = std::make_unique<Fiber>();
  fiber->name = std::move(name);
  fiber->body = std::move(body);
  Fiber& f = *fiber;
  fibers_.push_back(std::move(fiber));
  bf::fixedsize_stack stack(options_.fiber_stack_bytes);
  f.handle = std::make_unique<bf::fiber>(std::allocator_arg, stack, [this, index] { run_fiber_body(index); });
  // Let the new fiber run its prologue (it records its context and suspends), so that resume()
  // can switch to it directly from then on.
  current_ = index;
  boost::this_fiber::yield();
  current_ = kNoFiber;
  resume_at(FiberId{index}, now());
  return FiberId{index};
}

void Kernel::run_fiber_body(std::uint32_t index) {
  Fiber& f = *fibers_[index];
  f.context = bf::context::active();
  f.context->suspend();  // until the start event
  if (!f.cancel) {
    f.waiting_for.clear();
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
  f.waiting_for = "finished";
  // Returning terminates the fiber; the main context (queued when it resumed us) runs next.
}

void Kernel::suspend_current(std::string_view reason) {
  if (!in_fiber()) throw std::logic_error("Kernel::suspend_current called outside a fiber");
  Fiber& f = *fibers_[current_];
  if (f.cancel) throw FiberCancelled{};
  f.waiting_for.assign(reason);
  f.context->suspend();
  if (f.cancel) throw FiberCancelled{};
}

void Kernel::resume(FiberId id) {
  if (in_fiber()) throw std::logic_error("Kernel::resume called from inside a fiber; use resume_at");
  const auto index = static_cast<std::uint32_t>(id);
  Fiber& f = *fibers_.at(index);
  if (f.finished) throw std::logic_error(fmt::format("resume of finished fiber '{}'", f.name));
  current_ = index;
  bf::context::active()->schedule(f.context);
  boost::this_fiber::yield();
  current_ = kNoFiber;
}

void Kernel::resume_at(FiberId id, TimePoint t) {
  at(t, [this, id] { resume(id); });
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

const std::string& Kernel::fiber_name(FiberId id) const { return fibers_.at(static_cast<std::size_t>(id))->name; }
bool Kernel::fiber_finished(FiberId id) const { return fibers_.at(static_cast<std::size_t>(id))->finished; }

RunResult Kernel::run(TimePoint limit) {
  if (in_fiber()) throw std::logic_error("Kernel::run called from inside a fiber");
  RunResult result;
  stop_requested_ = false;
  const std::int64_t limit_ps = to_ps(limit);
  try {
    while (!queue_.empty() && !stop_requested_) {
      if (queue_.top().time_ps > limit_ps) {
        result.status = RunStatus::TimeLimit;
        break;
      }
      const Event e = queue_.pop();
      now_ps_ = e.time_ps;
      ++events_processed_;
      if (options_.trace_hash) {
        trace_.mix(static_cast<std::uint64_t>(e.time_ps));
        trace_.mix(e.seq);
      }
      e.invoke(e);
    }
  } catch (...) {
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
    if (!f->finished) result.blocked.push_back({f->name, f->waiting_for});
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
  for (auto& f : fibers_) {
    if (f->finished || !f->context) continue;
    f->cancel = true;
    current_ = static_cast<std::uint32_t>(&f - fibers_.data());
    bf::context::active()->schedule(f->context);
    boost::this_fiber::yield();
    current_ = kNoFiber;
  }
}

}  // namespace ncp2::emu
