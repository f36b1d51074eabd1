// The host-time limit of a real run (wall_limit_watch.hpp): node 0's watch, every node's answer.
#include "real_machine/wall_limit_watch.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace ncp2::real {

namespace {
constexpr double kAnswerGraceNs = 2e9;  // a local thread answers within 50 ms unless it hangs
}  // namespace

WallLimitWatch::WallLimitWatch(Transport& transport, const RunClock& clock, double max_wall_s, StopRun stop)
    : transport_(transport), clock_(clock), max_wall_s_(max_wall_s), stop_(std::move(stop)) {}

void WallLimitWatch::start(double now_ns) { started_ns_ = now_ns; }

void WallLimitWatch::look() {
  if (max_wall_s_ <= 0) return;
  const auto now = static_cast<double>(clock_.now_ns());
  if (now - started_ns_ < max_wall_s_ * 1e9) return;
  std::string text;
  {
    const std::lock_guard guard(mutex_);
    const int nodes = transport_.size();
    if (places_asked_ns_ == 0) {
      places_asked_ns_ = now;
      places_.assign(static_cast<std::size_t>(nodes), std::nullopt);
      for (int k = 0; k < nodes; ++k) transport_.send(k, Tag::PlaceQuery, {});
      return;
    }
    const bool all = std::all_of(places_.begin(), places_.end(), [](const auto& p) { return p.has_value(); });
    if (!all && now - places_asked_ns_ < kAnswerGraceNs) return;
    text = fmt::format(
        "stopped after {:.1f} s of host time (--max-wall); the partial results are kept, marked incomplete",
        max_wall_s_);
    for (std::size_t k = 0; k < places_.size(); ++k)
      text += fmt::format("\n  node {}: {}", k,
                          places_[k].value_or("did not say where it is (no answer in 2 s)"));
  }
  stop_(text);
}

void WallLimitWatch::on_place_reply(const Message& m) {
  WireReader r(m.body);
  std::string text = r.text();
  const std::lock_guard guard(mutex_);
  if (static_cast<std::size_t>(m.from) < places_.size() && !places_[static_cast<std::size_t>(m.from)])
    places_[static_cast<std::size_t>(m.from)] = std::move(text);
}

void WallLimitWatch::on_place_query(const Message& m, const std::string& waiting) {
  if (!waiting.empty()) {
    WireWriter w;
    w.text(waiting);
    transport_.send(m.from, Tag::PlaceReply, std::move(w).take());
    return;
  }
  place_wanted_.store(true, std::memory_order_release);
}

void WallLimitWatch::answer_if_asked(const std::function<std::string()>& place) {
  // A load first: the local thread looks at every request and every 50 ms, and is rarely asked.
  if (!place_wanted_.load(std::memory_order_acquire)) return;
  if (!place_wanted_.exchange(false, std::memory_order_acq_rel)) return;
  WireWriter w;
  w.text(place());
  transport_.send(0, Tag::PlaceReply, std::move(w).take());
}

}  // namespace ncp2::real
