// The computation of a program's node between two requests, on the emulated machine: charged
// from the instructions it executed, spread over the scopes its marks and samples name; the write
// faults it took at once, replayed where a fault request would have come (program_internal.hpp).
#include <algorithm>
#include <cmath>
#include <cstring>

#include <fmt/format.h>

#include "tmk/host/program_internal.hpp"

namespace ncp2::tmk {

void ProgramInstance::charge(Node& node, dsm::Process& p, std::uint64_t icount) {
  if (meter_) [[unlikely]] {
    charge_measured(node, p, icount);
    return;
  }
  if (icount <= node.charged_icount) return;
  const auto cycles = [this](std::uint64_t n) {
    return std::llround(static_cast<double>(n) * cycles_per_instruction_);
  };
  const std::int64_t due = cycles(icount) - cycles(node.charged_icount);
  node.charged_icount = icount;
  if (due > 0) p.compute_cycles(due, dsm::SourcePosition{});  // the program attributes its own lines
}

// The measured time model (docs/timing.md): the process timed its native code since it last
// resumed (the channel's TSC ticks); the hand-off to the emulator is outside that stretch.
void ProgramInstance::begin_measured_stretch(Node& node, const Channel& c) {
  if (!meter_ || c.request == Request::MoreProtections) return;  // the same stretch's second half
  auto& s = node.stretch;
  // Before Tmk_startup the process has not resumed yet: nothing timed (as in a real run).
  s.ps = c.resumed_tsc == 0 ? 0 : meter_->external_duration(emu::node_id(node.id), c.ticks).count();
  s.charged = 0;
  s.from = node.charged_icount;
  s.to = std::max(c.icount, node.charged_icount);
}

// The stretch's share up to `icount`, by instructions; the rest at its end (all of it when the
// stretch ran no counted instruction, e.g. in an uninstrumented library).
void ProgramInstance::charge_measured(Node& node, dsm::Process& p, std::uint64_t icount) {
  auto& s = node.stretch;
  if (icount < s.to && icount <= node.charged_icount) return;
  std::int64_t due = s.ps - s.charged;
  if (icount < s.to)
    due = std::llround(static_cast<double>(s.ps) * static_cast<double>(icount - s.from) /
                       static_cast<double>(s.to - s.from)) -
          s.charged;
  node.charged_icount = std::max(node.charged_icount, icount);
  if (due <= 0) return;
  s.charged += due;
  p.runtime().compute_external(p.node(), emu::Duration{due});
}

// The node's accesses since its last request go to the race detector before the request runs: a
// synchronization then closes the segment they belong to, and a run that stops (a failure, a
// deadlock) has every node's accesses in the detector already. The scope is the computation's.
void ProgramInstance::merge_accesses(Node& node, dsm::Process& p) {
  if (!node.accesses || node.accesses->touched() == 0) return;
  dsm::Runtime& runtime = p.runtime();
  node.accesses->merge_into(*runtime.race_detector(), p.node(), runtime.regions().at(region_).first_page,
                            runtime.scope_of(p.node()));
}

void ProgramInstance::enclosing_scope(Node& node, dsm::Process& p) {
  emu::Processor& pp = p.runtime().cluster().pp(p.node());
  pp.set_scope(node.annotations.empty() ? 0 : node.annotations.back()->id);
}

// Scope marks and samples made since the last request, up to the first `marks_end` and
// `samples_end` of them, in the order of their instruction counts: the computation before a sample
// goes to the sampled line, before a mark to the open scope.
void ProgramInstance::apply_events(Node& node, dsm::Process& p, std::uint32_t marks_end,
                                   std::uint32_t samples_end) {
  Channel& c = node.process->channel();
  const auto marks = std::min<std::uint32_t>({c.marks, kMaxScopeMarks, marks_end});
  const auto samples = std::min<std::uint32_t>({c.samples, kMaxSamples, samples_end});
  std::uint32_t& i = node.next_mark;
  std::uint32_t& j = node.next_sample;
  while (i < marks || j < samples) {
    if (j < samples && (i >= marks || c.sample[j].icount <= c.mark[i].icount)) {
      const Sample& s = c.sample[j++];
      attribute(node, p, s.pc, true);
      charge(node, p, s.icount);
    } else {
      apply_mark(node, p, c.mark[i++]);
    }
  }
  enclosing_scope(node, p);
}

// The write faults the node took at once since its last request (tmk/runtime/write_guards.cpp),
// each where a fault request would have come: after the marks and samples made before it. Until
// its fault, the runtime sees a page as its snapshot (the node had not written it yet in this
// interval): what the fault twins, and diffs or copies of it served meanwhile, are those bytes.
void ProgramInstance::replay_deferred_faults(Node& node, dsm::Process& p, RequestHandler& h) {
  const Channel& c = node.process->channel();
  node.next_mark = 0;
  node.next_sample = 0;
  const std::span<const DeferredFault> faults = node.server->deferred_faults(c, h);
  std::vector<std::uint32_t> pages(faults.size());
  for (std::size_t k = 0; k < faults.size(); ++k) {
    pages[k] = node.server->page_of(faults[k].address, h, "a write fault taken at once");
    p.runtime().show_page_as(p.node(), region_, pages[k], node.process->snapshots() + k * page_bytes_);
  }
  for (std::size_t k = 0; k < faults.size(); ++k) {
    const DeferredFault fault = faults[k];
    apply_events(node, p, fault.marks, fault.samples);
    replay(node, p, fault, pages[k], h);
    p.runtime().show_page_as(p.node(), region_, pages[k], nullptr);
  }
  apply_events(node, p, UINT32_MAX, UINT32_MAX);
}

// The computation up to a request (or a deferred fault) at `pc` (a return address, or a fault's own
// instruction): without annotations it goes to the requesting function.
void ProgramInstance::charge_until(Node& node, dsm::Process& p, std::uint64_t pc, bool return_address,
                                   std::uint64_t icount) {
  if (node.annotations.empty() && pc != 0) {
    const ProgramSites::Sites& sites = sites_at(node, return_address ? pc - 1 : pc);
    if (sites.function != 0) p.runtime().cluster().pp(p.node()).set_scope(sites.function);
  }
  charge(node, p, icount);
}

// One deferred write fault, as handle() runs a fault request.
void ProgramInstance::replay(Node& node, dsm::Process& p, const DeferredFault& fault, std::uint32_t page,
                             RequestHandler& h) {
  dsm::Runtime& runtime = p.runtime();
  if (!runtime.write_fault_is_local(p.node(), region_, page))
    node.server->fail(
        h, fmt::format("a write fault taken at once at {:#x} was not on a readable page", fault.address));
  charge_until(node, p, fault.pc, false, fault.icount);
  attribute(node, p, fault.pc, false);
  runtime.fault_taken_at_once(p.node(), region_, page);
  enclosing_scope(node, p);
}

// A page's protection for the node's process: its access, and whether a write fault may be taken at once.
Protection ProgramInstance::protection_of(dsm::Runtime& runtime, const Node& node, const std::uint8_t* access,
                                          std::uint32_t page) const {
  const auto a = static_cast<lrc::Access>(access[page]);
  return protection_for(
      a, a == lrc::Access::Read && runtime.write_fault_is_local(emu::node_id(node.id), region_, page));
}

void ProgramInstance::apply_mark(Node& node, dsm::Process& p, const ScopeMark& m) {
  const Channel& c = node.process->channel();
  charge(node, p, m.icount);
  const auto text = [&c](std::uint32_t at) {
    return at < kMarksTextBytes
               ? std::string(c.marks_text + at, strnlen(c.marks_text + at, kMarksTextBytes - at))
               : std::string();
  };
  if (m.begin) {
    node.annotations.push_back(&carnival::site_for(
        text(m.name_at), "block", sites_.resolve_file(text(m.file_at)), static_cast<int>(m.line), 0));
  } else if (!node.annotations.empty()) {
    // The C pair gives the block's last line; the C++ form (line 0) ends with its enclosing block.
    carnival::ScopeSite* site = node.annotations.back();
    if (m.line > 0) site->end_line = std::max(site->end_line, static_cast<int>(m.line));
    node.annotations.pop_back();
  }
  enclosing_scope(node, p);
}

// The scope a request's time goes to: the line of the call (or fault) inside its function.
void ProgramInstance::attribute(Node& node, dsm::Process& p, std::uint64_t pc, bool return_address) {
  const ProgramSites::Sites& sites = sites_at(node, return_address && pc != 0 ? pc - 1 : pc);
  if (sites.line != 0) p.runtime().cluster().pp(p.node()).set_scope(sites.line);
}

}  // namespace ncp2::tmk
