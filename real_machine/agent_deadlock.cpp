// Deadlock detection in a real run. Each node tells node 0 when it starts waiting for a lock or
// a barrier and when it stops. When node 0 sees every node waiting, and nothing changes for a
// grace period (a grant may still be in flight: the releaser sent it and then waited itself), it
// asks every node which locks it holds and where it acquired them, and stops the run with the
// emulator's kind of diagnosis: who waits for what, held by whom, taken where.
#include <fmt/format.h>

#include "real_machine/agent.hpp"
#include "real_machine/agent_internal.hpp"

namespace ncp2::real {

namespace {
constexpr double kGraceNs = 1e9;  // longer than any message takes to arrive on a live machine
constexpr std::uint32_t kRunning = 0;
constexpr std::uint32_t kLock = 1;
}  // namespace

std::string NodeAgent::describe_wait(std::uint32_t kind, std::uint32_t object, const std::string& where) {
  if (kind == kRunning) return {};
  if (kind != kLock && object == lrc::kExitBarrier) return "has exited and waits for the others";
  return fmt::format("waits for {}{}",
                     kind == kLock ? fmt::format("lock {}", object) : lrc::barrier_name(object), where);
}

void NodeAgent::report_blocked(std::uint32_t kind, std::uint32_t object, const std::string& where) {
  {
    const std::lock_guard guard(mutex_);
    my_wait_ = describe_wait(kind, object, where);
  }
  if (nodes() == 1) return;
  WireWriter w;
  w.u32(kind).u32(object).text(where);
  transport_.send(0, Tag::Blocked, std::move(w).take());
}

void NodeAgent::on_blocked(const Message& m) {
  WireReader r(m.body);
  Waiting w;
  w.kind = r.u32();
  w.object = r.u32();
  w.where = r.text();
  const std::lock_guard guard(mutex_);
  waiting_.resize(static_cast<std::size_t>(nodes()));
  waiting_.at(static_cast<std::size_t>(m.from)) = std::move(w);
  ++waiting_epoch_;
  all_waiting_since_ = 0;
  held_.clear();
}

void NodeAgent::on_held_query(const Message& m) {
  WireWriter w;
  {
    const std::lock_guard guard(mutex_);
    std::vector<std::pair<std::uint32_t, std::string>> held(held_where_.begin(), held_where_.end());
    w.u64(held.size());
    for (const auto& [id, where] : held) w.u32(id).text(where);
  }
  transport_.send(m.from, Tag::HeldReply, std::move(w).take());
}

void NodeAgent::on_held_reply(const Message& m) {
  WireReader r(m.body);
  std::vector<std::pair<std::uint32_t, std::string>> held;
  for (std::uint64_t i = 0, n = r.u64(); i < n; ++i) {
    const std::uint32_t id = r.u32();
    held.emplace_back(id, r.text());
  }
  const std::lock_guard guard(mutex_);
  if (held_.empty()) return;  // something changed since the query: not a deadlock after all
  held_.at(static_cast<std::size_t>(m.from)) = std::move(held);
}

void NodeAgent::look_for_deadlock() {
  std::string diagnosis;
  {
    const std::lock_guard guard(mutex_);
    if (waiting_.size() != static_cast<std::size_t>(nodes())) return;
    for (const Waiting& w : waiting_)
      if (w.kind == kRunning) return;
    const double now = now_ns();
    if (all_waiting_since_ == 0) all_waiting_since_ = now;
    if (now - all_waiting_since_ < kGraceNs) return;
    if (held_.empty()) {  // ask once; the replies come back here
      held_.resize(static_cast<std::size_t>(nodes()));
      for (int k = 0; k < nodes(); ++k) transport_.send(k, Tag::HeldQuery, {});
      return;
    }
    for (const auto& h : held_)
      if (!h) return;
    for (std::size_t k = 0; k < waiting_.size(); ++k) {
      const Waiting& w = waiting_[k];
      std::string line = fmt::format("node {} {}", k, describe_wait(w.kind, w.object, w.where));
      if (w.kind == kLock)
        for (std::size_t j = 0; j < held_.size(); ++j)
          for (const auto& [id, where] : *held_[j])
            if (id == w.object) line += fmt::format(", held by node {} which acquired it{}", j, where);
      diagnosis += (diagnosis.empty() ? "" : "; ") + line;
    }
  }
  broadcast_failure("deadlock: every node waits for another: " + diagnosis, StopKind::Deadlock);
}

}  // namespace ncp2::real
