#include "emulator/processor.hpp"

#include <stdexcept>

#include <fmt/format.h>

namespace ncp2::emu {

std::string_view to_string(PpState s) {
  switch (s) {
    case PpState::NotStarted: return "not started";
    case PpState::Running: return "running";
    case PpState::Computing: return "computing";
    case PpState::Waiting: return "waiting";
    case PpState::Finished: return "finished";
  }
  return "?";
}

Processor::Processor(Kernel& kernel, NodeId node, std::string name, Duration interrupt_overhead,
                     MemoryBus& bus, double copy_bandwidth)
    : kernel_(kernel), node_(node), name_(std::move(name)), interrupt_overhead_(interrupt_overhead),
      bus_(&bus), copy_bandwidth_(copy_bandwidth) {}

void Processor::start(std::function<void()> body) {
  if (started_) throw std::logic_error(fmt::format("{} started twice", name_));
  started_ = true;
  fiber_ = kernel_.spawn(name_, [this, body = std::move(body)] {
    state_ = PpState::Running;
    body();
    state_ = PpState::Finished;
    finish_time_ = kernel_.now();
  });
}

void Processor::require_own_fiber(std::string_view what) const {
  if (!started_ || !kernel_.in_fiber() || kernel_.current_fiber() != fiber_)
    throw std::logic_error(fmt::format("{}::{} called outside that processor's own fiber", name_, what));
}

void Processor::compute(Duration d) {
  require_own_fiber("compute");
  if (d <= Duration{0}) return;
  state_ = PpState::Computing;
  stats_.compute += d;
  if (in_interrupt_) compute_remaining_ = d;  // starts when the handlers are done
  else schedule_compute_end(kernel_.now() + d);
  kernel_.suspend_current("computing");
  state_ = PpState::Running;
}

void Processor::schedule_compute_end(TimePoint end) {
  compute_end_ = end;
  const std::uint64_t generation = ++compute_generation_;
  kernel_.at(end, [this, generation] {
    if (generation == compute_generation_) resume_fiber();  // otherwise preempted meanwhile
  });
}

void Processor::wait(std::string_view what) {
  require_own_fiber("wait");
  if (wake_token_) {
    wake_token_ = false;
    return;
  }
  state_ = PpState::Waiting;
  ++stats_.waits;
  kernel_.suspend_current(what);
  state_ = PpState::Running;
}

void Processor::wake() {
  if (state_ == PpState::Finished) return;
  if (state_ != PpState::Waiting) {
    wake_token_ = true;
    return;
  }
  if (in_interrupt_) {
    wake_deferred_ = true;
    return;
  }
  if (wake_scheduled_) return;
  // Resume in an event of its own, never in the middle of the caller's work.
  wake_scheduled_ = true;
  kernel_.at(kernel_.now(), [this] {
    wake_scheduled_ = false;
    if (state_ != PpState::Waiting) return;
    if (in_interrupt_) wake_deferred_ = true;
    else resume_fiber();
  });
}

void Processor::resume_fiber() { kernel_.resume(fiber_); }

void Processor::interrupt(InterruptHandler handler) {
  ++stats_.interrupts;
  pending_.push_back(handler);
  if (in_interrupt_) return;  // served after the current handler
  in_interrupt_ = true;
  if (state_ == PpState::Computing) {
    compute_remaining_ = compute_end_ - kernel_.now();
    ++compute_generation_;  // the scheduled end is void; it is rescheduled in handler_done()
  }
  begin_next_handler();
}

void Processor::begin_next_handler() {
  stats_.interrupt_overhead += interrupt_overhead_;
  kernel_.after(interrupt_overhead_, [this] { run_handler(); });
}

void Processor::run_handler() {
  const InterruptHandler handler = pending_.front();
  pending_.pop_front();
  WorkContext ctx(kernel_.now(), node_, Resource::PP, *bus_, copy_bandwidth_);
  handler(ctx);
  stats_.handlers += ctx.elapsed();
  kernel_.at(ctx.now(), [this] { handler_done(); });
}

void Processor::handler_done() {
  if (!pending_.empty()) {
    begin_next_handler();
    return;
  }
  in_interrupt_ = false;
  if (state_ == PpState::Computing) {
    schedule_compute_end(kernel_.now() + compute_remaining_);
  } else if (wake_deferred_) {
    wake_deferred_ = false;
    if (state_ == PpState::Waiting) resume_fiber();
  }
}

}  // namespace ncp2::emu
