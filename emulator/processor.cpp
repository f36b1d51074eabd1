#include "emulator/processor.hpp"

#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>

namespace ncp2::emu {

std::string_view to_string(PpState s) {
  switch (s) {
    case PpState::NotStarted:
      return "not started";
    case PpState::Running:
      return "running";
    case PpState::Computing:
      return "computing";
    case PpState::Waiting:
      return "waiting";
    case PpState::Finished:
      return "finished";
  }
  return "?";
}

Processor::Processor(Kernel& kernel, NodeId node, std::string name, Duration interrupt_overhead,
                     MemoryBus& bus, double copy_bandwidth)
    : kernel_(kernel),
      node_(node),
      name_(std::move(name)),
      interrupt_overhead_(interrupt_overhead),
      queued_overhead_(interrupt_overhead),
      current_overhead_(interrupt_overhead),
      bus_(&bus),
      copy_bandwidth_(copy_bandwidth) {}

void Processor::start(std::function<void()> body) {
  if (started_) throw std::logic_error(fmt::format("{} started twice", name_));
  started_ = true;
  fiber_ = kernel_.spawn(name_, [this, body = std::move(body)] {
    state_ = PpState::Running;
    body();
    state_ = PpState::Finished;
    finish_time_ = kernel_.now();
    if (!handlers_active_) set_activity(kernel_.now(), PpActivity::Finished);
  });
}

void Processor::not_own_fiber(std::string_view what) const {
  throw std::logic_error(fmt::format("{}::{} called outside that processor's own fiber", name_, what));
}

void Processor::compute(Duration d) {
  require_own_fiber("compute");
  if (d <= Duration{0}) return;
  stats_.compute += d;
  // Nothing can interrupt a computation that ends before the next event: just move the clock.
  if (!handlers_active_ && kernel_.fast_forward() && kernel_.try_advance(d)) return;
  state_ = PpState::Computing;
  if (handlers_active_)
    compute_remaining_ = d;  // the last handler schedules the end
  else
    schedule_compute_end(kernel_.now() + d);
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
  block_until_woken([this, what] { kernel_.suspend_current(what); });
}

void Processor::wait(Kernel::DescribeFn describe, const void* context) {
  block_until_woken([this, describe, context] { kernel_.suspend_current(describe, context); });
}

template <class Suspend>
void Processor::block_until_woken(Suspend suspend) {
  require_own_fiber("wait");
  if (wake_token_) {
    wake_token_ = false;
    return;
  }
  state_ = PpState::Waiting;
  ++stats_.waits;
  set_activity(kernel_.now(), PpActivity::Blocked);
  suspend();
  state_ = PpState::Running;
  set_activity(kernel_.now(), PpActivity::Compute);
}

void Processor::schedule_resume(TimePoint at) {
  wake_scheduled_ = true;
  kernel_.at(at, [this] {
    wake_scheduled_ = false;
    if (state_ != PpState::Waiting) return;
    if (handlers_active_)
      wake_deferred_ = true;  // an interrupt came first: resume after it
    else
      resume_fiber();
  });
}

void Processor::wake() {
  if (state_ == PpState::Finished) return;
  if (state_ != PpState::Waiting) {
    wake_token_ = true;
    return;
  }
  if (wake_scheduled_) return;
  if (handlers_active_) {
    wake_deferred_ = true;
    return;
  }
  // Resume in an event of its own, never in the middle of the caller's work.
  schedule_resume(std::max(kernel_.now(), handlers_free_at_));
}

PpActivity Processor::fiber_activity() const {
  switch (state_) {
    case PpState::Waiting:
      return PpActivity::Blocked;
    case PpState::Finished:
      return PpActivity::Finished;
    default:
      return PpActivity::Compute;
  }
}

void Processor::raised(HandlerTag tag) {
  ++stats_.interrupts;
  if (handlers_active_) return;  // served after the handlers before it
  handlers_active_ = true;
  const TimePoint now = kernel_.now();
  const TimePoint begin = std::max(now, handlers_free_at_);
  if (state_ == PpState::Computing) {
    // Preempt: the computation resumes after the handlers with what it had left.
    compute_remaining_ = compute_end_ - begin;
    ++compute_generation_;  // voids the scheduled end
  }
  set_activity(begin, PpActivity::Handler, tag);  // the entry overhead belongs to the handler
  stats_.interrupt_overhead += interrupt_overhead_;
  current_overhead_ = interrupt_overhead_;
  kernel_.at(begin + interrupt_overhead_, [this] { run_handler(); });
}

std::uint32_t Processor::park_slot() {
  if (free_parked_.empty()) {
    parked_.emplace_back();
    return static_cast<std::uint32_t>(parked_.size() - 1);
  }
  const std::uint32_t slot = free_parked_.back();
  free_parked_.pop_back();
  return slot;
}

void Processor::raise_parked_at(TimePoint when, std::uint32_t slot) {
  kernel_.at(when, [this, slot] {
    interrupt(parked_[slot].handler, parked_[slot].tag);  // copies it into the queue
    free_parked_.push_back(slot);
  });
}

void Processor::raise_deferred_at(TimePoint when, std::uint32_t slot, std::uint64_t generation) {
  kernel_.at(when, [this, slot, generation] {
    if (parked_[slot].generation == generation) raise_deferred(slot);
  });
}

void Processor::raise_deferred(std::uint32_t slot) {
  deferred_.erase(std::find(deferred_.begin(), deferred_.end(), slot));
  ++parked_[slot].generation;  // its timer, if still to come, finds it released
  interrupt(parked_[slot].handler, parked_[slot].tag);
  free_parked_.push_back(slot);
}

void Processor::release_deferred() {
  while (!deferred_.empty()) raise_deferred(deferred_.front());
}

void Processor::run_handler() {
  const PendingHandler item = pending_.front();
  pending_.pop_front();
  // A change of nature between queued handlers starts a new span where this one's overhead began.
  if (item.tag.service != span_tag_.service || item.tag.operation != span_tag_.operation)
    set_activity(kernel_.now() - current_overhead_, PpActivity::Handler, item.tag);
  WorkContext ctx(kernel_.now(), node_, Resource::PP, *bus_, copy_bandwidth_);
  item.handler(ctx);
  stats_.handlers += ctx.elapsed();
  const TimePoint end = ctx.now();
  handlers_free_at_ = end;
  if (!pending_.empty()) {
    stats_.interrupt_overhead += queued_overhead_;
    current_overhead_ = queued_overhead_;
    kernel_.at(end + queued_overhead_, [this] { run_handler(); });
    return;
  }
  // The last handler: the PP goes back to what the fiber was doing when it ends. An interrupt
  // arriving before `end` finds handlers_active_ false but waits for handlers_free_at_.
  handlers_active_ = false;
  set_activity(end, fiber_activity());
  if (state_ == PpState::Computing) {
    schedule_compute_end(end + compute_remaining_);
  } else if (wake_deferred_) {
    wake_deferred_ = false;
    if (state_ == PpState::Waiting) schedule_resume(end);
  }
}

}  // namespace ncp2::emu
