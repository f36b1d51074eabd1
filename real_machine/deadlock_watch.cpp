// Deadlock detection in a real run (deadlock_watch.hpp): what each node reports, and node 0's
// watch over the reports.
#include "real_machine/deadlock_watch.hpp"

#include <fmt/format.h>

#include "lrc/types.hpp"

namespace ncp2::real {

namespace {
constexpr double kGraceNs = 1e9;  // longer than any message takes to arrive on a live machine

std::string describe_wait(WaitKind kind, std::uint32_t object, const std::string& where) {
  if (kind == WaitKind::Running) return {};
  if (kind != WaitKind::Lock && object == lrc::kExitBarrier) return "has exited and waits for the others";
  return fmt::format("waits for {}{}",
                     kind == WaitKind::Lock ? fmt::format("lock {}", object) : lrc::barrier_name(object),
                     where);
}
}  // namespace

DeadlockWatch::DeadlockWatch(Transport& transport, const RunClock& clock, StopRun stop)
    : transport_(transport), clock_(clock), stop_(std::move(stop)) {}

void DeadlockWatch::report_waiting(WaitKind kind, std::uint32_t object, const std::string& where) {
  {
    const std::lock_guard guard(mutex_);
    local_wait_ = describe_wait(kind, object, where);
  }
  if (transport_.size() == 1) return;
  WireWriter w;
  w.u32(static_cast<std::uint32_t>(kind)).u32(object).text(where);
  transport_.send(0, Tag::Blocked, std::move(w).take());
}

void DeadlockWatch::acquired(std::uint32_t lock, const std::string& where) {
  const std::lock_guard guard(mutex_);
  held_where_[lock] = where;
}

void DeadlockWatch::released(std::uint32_t lock) {
  const std::lock_guard guard(mutex_);
  held_where_.erase(lock);
}

std::string DeadlockWatch::local_wait() const {
  const std::lock_guard guard(mutex_);
  return local_wait_;
}

void DeadlockWatch::on_held_query(const Message& m) {
  WireWriter w;
  {
    const std::lock_guard guard(mutex_);
    w.u64(held_where_.size());
    for (const auto& [id, where] : held_where_) w.u32(id).text(where);
  }
  transport_.send(m.from, Tag::HeldReply, std::move(w).take());
}

void DeadlockWatch::on_blocked(const Message& m) {
  WireReader r(m.body);
  Waiting w;
  w.kind = static_cast<WaitKind>(r.u32());
  w.object = r.u32();
  w.where = r.text();
  const std::lock_guard guard(mutex_);
  waiting_.resize(static_cast<std::size_t>(transport_.size()));
  waiting_.at(static_cast<std::size_t>(m.from)) = std::move(w);
  waits_changed();
}

void DeadlockWatch::on_held_reply(const Message& m) {
  WireReader r(m.body);
  HeldLocks held;
  for (std::uint64_t i = 0, n = r.u64(); i < n; ++i) {
    const std::uint32_t id = r.u32();
    held.emplace_back(id, r.text());
  }
  const std::lock_guard guard(mutex_);
  if (held_.empty()) return;  // something changed since the query: not a deadlock after all
  held_.at(static_cast<std::size_t>(m.from)) = std::move(held);
}

void DeadlockWatch::barrier_released() {
  // Their own "no longer waiting" comes later, after their release arrived.
  const std::lock_guard guard(mutex_);
  for (Waiting& w : waiting_) w.kind = WaitKind::Running;
  waits_changed();
}

void DeadlockWatch::waits_changed() {
  all_waiting_since_ = 0;
  held_.clear();
}

void DeadlockWatch::look() {
  std::string text;
  {
    const std::lock_guard guard(mutex_);
    const int nodes = transport_.size();
    if (waiting_.size() != static_cast<std::size_t>(nodes)) return;
    for (const Waiting& w : waiting_)
      if (w.kind == WaitKind::Running) return;
    const auto now = static_cast<double>(clock_.now_ns());
    if (all_waiting_since_ == 0) all_waiting_since_ = now;
    if (now - all_waiting_since_ < kGraceNs) return;
    if (held_.empty()) {  // ask once; the replies come back here
      held_.resize(static_cast<std::size_t>(nodes));
      for (int k = 0; k < nodes; ++k) transport_.send(k, Tag::HeldQuery, {});
      return;
    }
    for (const auto& h : held_)
      if (!h) return;
    text = diagnosis();
  }
  stop_("deadlock: every node waits for another: " + text);
}

std::string DeadlockWatch::diagnosis() const {
  std::string text;
  for (std::size_t k = 0; k < waiting_.size(); ++k) {
    const Waiting& w = waiting_[k];
    std::string line = fmt::format("node {} {}", k, describe_wait(w.kind, w.object, w.where));
    if (w.kind == WaitKind::Lock)
      for (std::size_t j = 0; j < held_.size(); ++j)
        for (const auto& [id, where] : *held_[j])
          if (id == w.object) line += fmt::format(", held by node {} which acquired it{}", j, where);
    text += (text.empty() ? "" : "; ") + line;
  }
  return text;
}

}  // namespace ncp2::real
