// The host-time limit of a real run (--max-wall, issue 36). Node 0's service thread watches the
// clock; at the limit it asks every node where its program is. A node whose local thread waits in
// a lock or a barrier answers from its service thread (what it waits for, and where it asked);
// otherwise the local thread answers between two requests, or within 50 ms while the program runs
// its own code (the wait's timeout). With every answer in, or after a grace period, node 0 stops
// the run as the emulated machines do: the partial results kept, marked incomplete, each node's
// place named. mpirun's --timeout, a little later, remains for an agent that hangs outright.
#include <algorithm>
#include <filesystem>

#include <fmt/format.h>

#include "carnival/scope_sites.hpp"
#include "real_machine/agent.hpp"
#include "real_machine/agent_internal.hpp"

namespace ncp2::real {

namespace {
constexpr double kAnswerGraceNs = 2e9;  // a local thread answers within 50 ms unless it hangs
}  // namespace

void NodeAgent::look_for_wall_limit() {
  if (options_.max_wall_s <= 0) return;
  const double now = now_ns();
  if (now - service_started_ns_ < options_.max_wall_s * 1e9) return;
  std::string text;
  {
    const std::lock_guard guard(mutex_);
    if (places_asked_ns_ == 0) {
      places_asked_ns_ = now;
      places_.assign(static_cast<std::size_t>(nodes()), std::nullopt);
      for (int k = 0; k < nodes(); ++k) transport_.send(k, Tag::PlaceQuery, {});
      return;
    }
    const bool all = std::all_of(places_.begin(), places_.end(), [](const auto& p) { return p.has_value(); });
    if (!all && now - places_asked_ns_ < kAnswerGraceNs) return;
    text = fmt::format(
        "stopped after {:.1f} s of host time (--max-wall); the partial results are kept, marked incomplete",
        options_.max_wall_s);
    for (std::size_t k = 0; k < places_.size(); ++k)
      text += fmt::format("\n  node {}: {}", k,
                          places_[k].value_or("did not say where it is (no answer in 2 s)"));
  }
  broadcast_failure(text, StopKind::Limit);
}

void NodeAgent::on_place_query(const Message& m) {
  std::string waiting;
  {
    const std::lock_guard guard(mutex_);
    waiting = my_wait_;
  }
  // The local thread waits for a reply: it cannot answer, but what it waits for is known here.
  if (!waiting.empty() && awaiting_.load(std::memory_order_acquire) > 0) {
    WireWriter w;
    w.text(waiting);
    transport_.send(m.from, Tag::PlaceReply, std::move(w).take());
    return;
  }
  place_wanted_.store(true, std::memory_order_release);
}

void NodeAgent::on_place_reply(const Message& m) {
  WireReader r(m.body);
  std::string text = r.text();
  const std::lock_guard guard(mutex_);
  if (static_cast<std::size_t>(m.from) < places_.size() && !places_[static_cast<std::size_t>(m.from)])
    places_[static_cast<std::size_t>(m.from)] = std::move(text);
}

void NodeAgent::answer_place_query() {
  if (!place_wanted_.exchange(false, std::memory_order_acq_rel)) return;
  WireWriter w;
  w.text(exited_ ? std::string("had exited") : place());
  transport_.send(0, Tag::PlaceReply, std::move(w).take());
}

std::string NodeAgent::place() const {
  std::string text = "in the program";
  const std::uint32_t scope = current_scope_.load(std::memory_order_relaxed);
  const auto sites = carnival::scope_sites();
  if (scope != 0 && scope <= sites.size()) {
    const carnival::ScopeSite& site = *sites[scope - 1];
    text = fmt::format("in {} ({}:{})", site.name, std::filesystem::path(site.file).filename().string(),
                       site.line);
  }
  if (const std::string last = where(); !last.empty()) text += ", last seen by its agent" + last;
  return text;
}

}  // namespace ncp2::real
