// The emulated machine's model of the protocol's own work (Runtime::Costs, the core's CostSink):
// write notices, twins and diffs cost what the configuration says, on the PP running TreadMarks
// in software (treadmarks) or inside the CP's commands (ncp2, whose hardware makes and applies
// diffs: their command costs cover it). dsm.lazy_diffs follows TreadMarks' lazy diff creation: a
// page written in successive intervals keeps one twin, and its one diff is charged when someone
// asks for it or a write notice invalidates the page; the host still makes a diff per interval
// (the data path does not depend on the model).
#include "dsm/runtime.hpp"
#include "dsm/runtime_internal.hpp"

namespace ncp2::dsm {

emu::Duration Runtime::diff_cost(std::size_t words, std::size_t runs) const {
  const auto scanned =
      static_cast<std::int64_t>(page_size_ / static_cast<std::size_t>(config_.memory.word_size));
  return config_.dsm.diff_scan_per_word * scanned +
         config_.dsm.diff_encode_per_word * static_cast<std::int64_t>(words) +
         config_.dsm.diff_per_run * static_cast<std::int64_t>(runs);
}

void Runtime::Costs::charge(emu::Duration d) {
  if (!ctx_ && ns_.timed_by_program) return;  // in the process's measured computation already
  if (ctx_)
    ctx_->spend(d);
  else
    unspent_ += d;
}

void Runtime::Costs::settle() {
  const emu::Duration d = unspent_;
  unspent_ = emu::Duration{0};
  ns_.pp->compute(d);
}

void Runtime::Costs::write_notices(std::size_t count) {
  charge(rt_.config_.dsm.per_write_notice * static_cast<std::int64_t>(count));
}

void Runtime::Costs::interval_closed(std::size_t pages) {
  charge(rt_.config_.dsm.close_per_page * static_cast<std::int64_t>(pages));
}

// A new diff: lazily, added to what the diff TreadMarks makes later will be charged; otherwise on
// the PP (treadmarks).
void Runtime::Costs::diff_made(PageId page, lrc::DiffSize size) {
  if (rt_.lazy_diffs()) {
    LazyDiffState& lazy = ns_.lazy[raw(page)];
    lazy.uncharged_words += static_cast<std::uint32_t>(size.words);
    lazy.uncharged_runs += static_cast<std::uint32_t>(size.runs);
  } else if (!rt_.cluster_.has_cp()) {
    charge(rt_.diff_cost(size.words, size.runs));
  }
}

// TreadMarks makes one diff of the twin it kept since the page's first write after the last diff:
// one scan of the page, the changed words of every interval since (their sum: an upper bound of
// the words of that one diff). The twin is gone after it: the page's next write makes a new one.
void Runtime::Costs::diff_wanted(PageId page) {
  LazyDiffState& lazy = ns_.lazy[raw(page)];
  if (!rt_.lazy_diffs() || !lazy.modeled_twin) return;
  const emu::Duration cost = rt_.diff_cost(lazy.uncharged_words, lazy.uncharged_runs);
  lazy = LazyDiffState{};
  charge(cost);
}

// A twin: the PP copies the page in software (treadmarks) — unless, lazily, TreadMarks still has
// the twin it made at an earlier interval's first write.
void Runtime::Costs::twin_made(PageId page) {
  LazyDiffState& lazy = ns_.lazy[raw(page)];
  const bool software = !rt_.cluster_.has_cp();
  const bool copies = software && !(rt_.lazy_diffs() && lazy.modeled_twin);
  lazy.modeled_twin = rt_.lazy_diffs();
  if (!copies) return;
  const emu::TimePoint now = rt_.kernel_.now();
  const emu::TimePoint copied =
      ns_.pp->bus().transfer(now, static_cast<std::int64_t>(rt_.page_size_), rt_.config_.pp.copy_bandwidth);
  charge(copied - now);  // on the PP, or in the handler that closed an interval (a lock request)
}

void Runtime::Costs::diffs_applied(std::size_t words) {
  if (!rt_.cluster_.has_cp()) charge(rt_.config_.dsm.diff_apply_per_word * static_cast<std::int64_t>(words));
}

void Runtime::Costs::history_discarded() { std::fill(ns_.lazy.begin(), ns_.lazy.end(), LazyDiffState{}); }

}  // namespace ncp2::dsm
