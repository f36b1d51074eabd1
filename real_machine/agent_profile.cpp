// The agent's local thread: where the node's time went. The program's native execution between
// two requests is Comp, spread over the scopes its scope marks and samples name in proportion to
// the instructions counted between them (ncp2-cc's pass; without it, all to the last scope). A
// request's time, from the moment the program posted it to the moment it resumed, is Wait when it
// waited for another node (a wait row, cut into parts), else Extra. The same scope sites as an
// emulated run of the program (tmk/host/program.cpp), so the two compare scope by scope.
#include <algorithm>
#include <cstring>

#include <fmt/format.h>

#include "carnival/scope_sites.hpp"
#include "real_machine/agent.hpp"
#include "real_machine/agent_internal.hpp"
#include "tmk/host/node_process.hpp"

namespace ncp2::real {

using carnival::Category;
using carnival::WaitPart;

void NodeAgent::close_pending(double resumed_ns) {
  if (!pending_) return;
  if (!options_.profile) {
    pending_.reset();
    return;
  }
  Pending& p = *pending_;
  if (p.startup) {  // joining the run (and loading the line tables) is not its time
    record_.start_ns = resumed_ns;
    pending_.reset();
    return;
  }
  const double total = std::max(0.0, resumed_ns - p.posted_ns);
  const std::string operation(lrc::to_string(p.operation));
  if (p.exchanges.empty()) {
    record_.add(p.scope, Category::Extra, operation, total);
    record_.add_segment({false, Category::Extra, operation, p.scope, p.posted_ns, resumed_ns});
    pending_.reset();
    return;
  }
  // One wait per exchange. The first also holds the request's time in the agent's queue, the last
  // the program's resumption; between two, the agent's own work is Extra.
  double waited = 0;
  for (std::size_t k = 0; k < p.exchanges.size(); ++k) {
    const Exchange& x = p.exchanges[k];
    const bool first = k == 0;
    const bool last = k + 1 == p.exchanges.size();
    const double start = first ? p.posted_ns : x.start_ns;
    const double end = last ? std::max(x.end_ns, resumed_ns) : x.end_ns;
    MeasuredWait w;
    w.scope = p.scope;
    w.operation = std::string(lrc::to_string(x.operation));
    w.object = x.object;
    w.remote_node = x.remote_node;
    w.cause_node = x.cause_node;
    w.start_ns = start;
    // The parts that can be observed; what is left of the agent's handling is its own work.
    const double remote = std::max(0.0, x.end_ns - x.start_ns);
    if (first) part(w, WaitPart::CPLWait) = std::max(0.0, p.picked_ns - p.posted_ns);
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
  pending_.reset();
}

void NodeAgent::account_computation(double resumed_ns, double posted_ns) {
  if (!options_.profile) return;
  const tmk::Channel& c = process_->channel();
  const double comp = std::max(0.0, posted_ns - resumed_ns);
  const std::uint64_t counted = c.icount > last_icount_ ? c.icount - last_icount_ : 0;
  std::uint64_t at = last_icount_;
  double given = 0;
  std::uint32_t scope = annotations_.empty() ? 0 : annotations_.back()->id;
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
      if (const std::uint32_t line = site_of(s.pc, true, false); line != 0) scope = line;
      give(s.icount);
    } else {
      const tmk::ScopeMark& m = c.mark[i++];
      give(m.icount);
      apply_mark(m);
      scope = annotations_.empty() ? 0 : annotations_.back()->id;
    }
  }
  // Without blocks, the computation before a request is the requesting function's.
  if (annotations_.empty() && c.pc != 0)
    if (const std::uint32_t f = site_of(c.pc, c.request != tmk::Request::Fault, true); f != 0) scope = f;
  const std::string none(lrc::to_string(lrc::Operation::None));
  record_.add(scope, Category::Comp, none, comp - given);
  current_scope_.store(scope, std::memory_order_relaxed);  // where the node is, if asked (--max-wall)
  // One stretch per run of native execution, in the scope it ended in (the profile splits it).
  record_.add_segment({false, Category::Comp, none, scope, resumed_ns, posted_ns});
}

void NodeAgent::apply_mark(const tmk::ScopeMark& m) {
  const tmk::Channel& c = process_->channel();
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

// The scope site of an instruction: its line, or its function (0: unknown).
std::uint32_t NodeAgent::site_of(std::uint64_t pc, bool return_address, bool function) {
  sites_.load(process_->channel().load_base);
  const tmk::ProgramSites::Sites& s = sites_.at(return_address && pc != 0 ? pc - 1 : pc);
  const std::uint32_t id = function ? s.function : s.line;
  record_.note_site(id);
  return id;
}

std::string NodeAgent::where() const { return process_ ? sites_.where(process_->channel()) : std::string(); }

}  // namespace ncp2::real
