// Where a node's time went in a real run (program_profile.hpp).
#include "real_machine/program_profile.hpp"

#include <algorithm>
#include <cstring>
#include <memory>
#include <string>

namespace ncp2::real {

using carnival::Category;
using carnival::WaitPart;

namespace {
// One part of a wait's time.
double& part(MeasuredWait& w, WaitPart p) { return w.parts[static_cast<std::size_t>(p)]; }
}  // namespace

ProgramProfile::ProgramProfile(NodeRecord& record, tmk::ProgramSites& sites, bool enabled)
    : record_(record), sites_(sites), enabled_(enabled) {}

void ProgramProfile::request_taken(const tmk::Channel& c, double resumed_ns, double posted_ns,
                                   double picked_ns) {
  close(resumed_ns);
  if (c.request != tmk::Request::Startup) computed(c, resumed_ns, posted_ns);
  last_icount_ = c.icount;
  pending_ = std::make_unique<Pending>();
  pending_->posted_ns = std::min(posted_ns, picked_ns);
}

void ProgramProfile::scope_at_call(const tmk::Channel& c) {
  if (enabled_ && c.pc != 0) pending_->scope = site_of(c, c.pc, c.request != tmk::Request::Fault, false);
  if (pending_->scope == 0 && !annotations_.empty()) pending_->scope = annotations_.back()->id;
}

void ProgramProfile::scope_at_exit(const tmk::Channel& c) {
  if (enabled_ && c.pc != 0) pending_->scope = site_of(c, c.pc, true, true);
}

void ProgramProfile::joining() { pending_->startup = true; }

void ProgramProfile::entered(lrc::Operation op) {
  if (pending_ && pending_->operation == lrc::Operation::None) pending_->operation = op;
}

void ProgramProfile::forget_operation() { pending_->operation = lrc::Operation::None; }

ProgramProfile::Exchange& ProgramProfile::exchange(lrc::Operation op, std::uint64_t object) {
  Exchange x;
  x.operation = op;
  x.object = object;
  pending_->exchanges.push_back(x);
  return pending_->exchanges.back();
}

void ProgramProfile::replied(double ns) { pending_->replied_ns = ns; }

void ProgramProfile::close(double resumed_ns) {
  if (!pending_) return;
  if (!enabled_) {
    pending_.reset();
    return;
  }
  const Pending& p = *pending_;
  if (p.startup) {  // joining the run (and loading the line tables) is not its time
    record_.start_ns = resumed_ns;
    pending_.reset();
    return;
  }
  if (p.exchanges.empty()) {
    const double total = std::max(0.0, resumed_ns - p.posted_ns);
    const std::string operation(lrc::to_string(p.operation));
    record_.add(p.scope, Category::Extra, operation, total);
    record_.add_segment({false, Category::Extra, operation, p.scope, p.posted_ns, resumed_ns});
    pending_.reset();
    return;
  }
  close_with_waits(p, resumed_ns);
  pending_.reset();
}

// One wait per exchange, from the moment its request was sent; the last also holds the program's
// resumption. Before the first, the hand-off to the agent and its own work (closing the interval,
// a fault's entry) are Extra, as an emulated node's protocol entry before its wait begins
// (dsm/runtime.cpp, send_request): so the two machines put an interval's close in the same
// category. Between two waits, the agent's own work is Extra too.
void ProgramProfile::close_with_waits(const Pending& p, double resumed_ns) {
  const double total = std::max(0.0, resumed_ns - p.posted_ns);
  const std::string operation(lrc::to_string(p.operation));
  const double sent = std::clamp(p.exchanges.front().start_ns, p.posted_ns, p.posted_ns + total);
  if (sent > p.posted_ns)
    record_.add_segment({false, Category::Extra, operation, p.scope, p.posted_ns, sent});
  double waited = 0;
  for (std::size_t k = 0; k < p.exchanges.size(); ++k) {
    const Exchange& x = p.exchanges[k];
    const bool last = k + 1 == p.exchanges.size();
    const double start = std::max(x.start_ns, sent);
    const double end = last ? std::max(x.end_ns, resumed_ns) : x.end_ns;
    MeasuredWait w;
    w.scope = p.scope;
    w.operation = std::string(lrc::to_string(x.operation));
    w.object = x.object;
    w.remote_node = x.remote_node;
    w.cause_node = x.cause_node;
    w.start_ns = start;
    // The parts that can be observed; what is left of the agent's handling is its own work.
    const double remote = std::max(0.0, x.end_ns - start);
    if (last) part(w, WaitPart::PPLWait) = p.replied_ns > 0 ? std::max(0.0, resumed_ns - p.replied_ns) : 0;
    const double sync = std::min(x.sync_ns, remote);
    const double service = std::min(x.service_ns, remote - sync);
    part(w, WaitPart::SyncDelay) = sync;
    part(w, WaitPart::CPRComp) = service;
    part(w, WaitPart::CPComm) = remote - sync - service;
    double others = 0;
    for (std::size_t i = 0; i < w.parts.size(); ++i)
      if (i != static_cast<std::size_t>(WaitPart::CPLComp)) others += w.parts[i];
    part(w, WaitPart::CPLComp) = std::max(0.0, (end - start) - others);
    w.duration_ns = std::max(end - start, others);
    waited += w.duration_ns;
    record_.add(p.scope, Category::Wait, w.operation, w.duration_ns);
    record_.add_segment({false, Category::Wait, w.operation, p.scope, start, start + w.duration_ns});
    record_.waits.push_back(std::move(w));
  }
  if (total > waited) record_.add(p.scope, Category::Extra, operation, total - waited);
  record_.note_site(p.scope);
}

void ProgramProfile::computed(const tmk::Channel& c, double resumed_ns, double posted_ns) {
  if (!enabled_) return;
  const double comp = std::max(0.0, posted_ns - resumed_ns);
  const std::uint64_t counted = c.icount > last_icount_ ? c.icount - last_icount_ : 0;
  std::uint64_t at = last_icount_;
  double given = 0;
  std::uint32_t scope = innermost_block();
  const auto give = [&](std::uint64_t upto) {
    if (counted == 0 || upto <= at) return;
    const double ns =
        comp * static_cast<double>(std::min(upto, c.icount) - at) / static_cast<double>(counted);
    record_.add(scope, Category::Comp, std::string(lrc::to_string(lrc::Operation::None)), ns);
    given += ns;
    at = std::min(upto, c.icount);
  };
  const std::uint32_t marks = std::min<std::uint32_t>(c.marks, tmk::kMaxScopeMarks);
  const std::uint32_t samples = std::min<std::uint32_t>(c.samples, tmk::kMaxSamples);
  for (std::uint32_t i = 0, j = 0; i < marks || j < samples;) {
    if (j < samples && (i >= marks || c.sample[j].icount <= c.mark[i].icount)) {
      const tmk::Sample& s = c.sample[j++];
      if (const std::uint32_t line = site_of(c, s.pc, true, false); line != 0) scope = line;
      give(s.icount);
    } else {
      const tmk::ScopeMark& m = c.mark[i++];
      give(m.icount);
      apply_mark(c, m);
      scope = innermost_block();
    }
  }
  // Without blocks, the computation before a request is the requesting function's.
  if (annotations_.empty() && c.pc != 0)
    if (const std::uint32_t f = site_of(c, c.pc, c.request != tmk::Request::Fault, true); f != 0) scope = f;
  const std::string none(lrc::to_string(lrc::Operation::None));
  record_.add(scope, Category::Comp, none, comp - given);
  current_scope_.store(scope, std::memory_order_relaxed);  // where the node is, if asked (--max-wall)
  // One stretch per run of native execution, in the scope it ended in (the profile splits it).
  record_.add_segment({false, Category::Comp, none, scope, resumed_ns, posted_ns});
}

void ProgramProfile::apply_mark(const tmk::Channel& c, const tmk::ScopeMark& m) {
  const auto text = [&c](std::uint32_t at) {
    return at < tmk::kMarksTextBytes
               ? std::string(c.marks_text + at, strnlen(c.marks_text + at, tmk::kMarksTextBytes - at))
               : std::string();
  };
  if (m.begin) {
    annotations_.push_back(&carnival::site_for(text(m.name_at), "block", sites_.resolve_file(text(m.file_at)),
                                               static_cast<int>(m.line), 0));
  } else if (!annotations_.empty()) {
    carnival::ScopeSite* site = annotations_.back();
    if (m.line > 0) site->end_line = std::max(site->end_line, static_cast<int>(m.line));
    annotations_.pop_back();
  }
}

std::uint32_t ProgramProfile::site_of(const tmk::Channel& c, std::uint64_t pc, bool return_address,
                                      bool function) {
  sites_.load(c.load_base);
  const tmk::ProgramSites::Sites& s = sites_.at(return_address && pc != 0 ? pc - 1 : pc);
  const std::uint32_t id = function ? s.function : s.line;
  record_.note_site(id);
  return id;
}

}  // namespace ncp2::real
