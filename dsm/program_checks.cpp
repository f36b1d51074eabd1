// The checks of a workload's program (dsm/program_checks.hpp): races recorded and merged, spans
// taken into the current views, views closed at each synchronization, and a stale use reported at
// the node's next DSM entry (dsm/span_checker.hpp has the mechanism).
#include "dsm/program_checks.hpp"

#include <algorithm>
#include <stdexcept>
#include <system_error>

#include <fmt/format.h>

#include "dsm/span_checker.hpp"
#include "lrc/types.hpp"

namespace ncp2::dsm {

ProgramChecks::ProgramChecks(int nodes, std::size_t page_size, const std::vector<RegionInfo>& regions)
    : nodes_(nodes), page_size_(page_size), regions_(regions) {}

ProgramChecks::~ProgramChecks() = default;

void ProgramChecks::enable_races() {
  if (!races_) races_ = std::make_unique<RaceDetector>(nodes_, page_size_);
}

void ProgramChecks::enable_spans(bool allocated) {
  if (spans_) return;
  if (allocated)
    throw std::logic_error("Runtime::check_spans must be called before the first shared array is allocated");
  spans_ = std::make_unique<SpanChecker>(nodes_);
}

void ProgramChecks::synchronizing(NodeId n, Operation op, std::uint32_t id, bool after) {
  if (!after) {
    if (races_ && op == Operation::LockRelease) races_->release(n, LockId{id});  // before it can move on
    if (races_ && op == Operation::Barrier) races_->barrier_arrive(n);
    if (spans_) [[unlikely]] {
      check_stale(n);  // a use before this synchronization is reported as such, not after it
      spans_->synchronize(emu::index(n), SyncPoint{op, id});
    }
    return;
  }
  if (races_ && op == Operation::LockAcquire) races_->acquired(n, LockId{id});
  if (races_ && op == Operation::Barrier) races_->barrier_depart(n);
}

void ProgramChecks::record_access(NodeId n, PageId first_page, std::size_t offset, std::size_t bytes,
                                  bool write, const AccessSite& site) {
  if (!races_) return;
  while (bytes > 0) {  // page by page
    const std::size_t in_page = offset % page_size_;
    const std::size_t piece = std::min(bytes, page_size_ - in_page);
    const PageId page{raw(first_page) + static_cast<std::uint32_t>(offset / page_size_)};
    if (write)
      races_->write(n, page, in_page, piece, site);
    else
      races_->read(n, page, in_page, piece, site);
    offset += piece;
    bytes -= piece;
  }
}

// Every node's copy of the region is mapped for views (span_checker.hpp).
void ProgramChecks::add_checked_region(std::uint32_t region, std::size_t bytes) {
  try {
    spans_->add_region(region, bytes);
  } catch (const std::system_error& e) {
    throw DsmError(fmt::format("shared array #{} ({} bytes per node): {}", region, bytes, e.what()));
  }
}

std::byte* ProgramChecks::checked_copy(std::uint32_t region, NodeId n) {
  return spans_->primary(region, emu::index(n));
}

std::byte* ProgramChecks::take_span(NodeId n, std::uint32_t region, std::size_t offset, std::size_t bytes,
                                    const char* file, int line) {
  at_entry(n);
  if (!spans_->checks(region)) return nullptr;
  return spans_->take(emu::index(n), region, offset, bytes, file, line);
}

void ProgramChecks::check_stale(NodeId n) {
  if (spans_->stale(emu::index(n))) [[unlikely]]
    report_stale(n);
}

namespace {

std::string sync_name(const SyncPoint& sync) {
  switch (sync.operation) {
    case Operation::LockAcquire:
      return fmt::format("its acquire of lock {}", sync.id);
    case Operation::LockRelease:
      return fmt::format("its release of lock {}", sync.id);
    case Operation::Barrier:
      return lrc::barrier_name(sync.id);
    default:
      return "a synchronization";
  }
}

}  // namespace

// "at workloads/sor.cpp:123"; in a leaf library function (memcpy), the line that called it.
std::string ProgramChecks::code_place(std::uint64_t pc, std::uint64_t stack_top) const {
  if (places_.line_of) {
    if (std::string line = places_.line_of(pc); !line.empty()) return "at " + line;
    if (stack_top != 0)
      if (std::string line = places_.line_of(stack_top - 1); !line.empty())
        return "in a library function called at " + line;
  }
  return pc == 0 ? std::string("at an unknown place") : fmt::format("at address {:#x}", pc);
}

// "node 2 read element 1234 of 'grid' through a span that barrier 1 invalidated, at
// workloads/sor.cpp:123 (the span was taken at workloads/sor.cpp:98): a span is valid until the
// node's next synchronization; take a new span after each lock acquire, lock release and barrier"
void ProgramChecks::report_stale(NodeId n) {
  const SpanChecker::StaleUse use = spans_->take_stale(emu::index(n));
  const RegionInfo& region = regions_.at(use.region);
  const char* verb = use.write == 1 ? "wrote" : use.write == 0 ? "read" : "used";
  std::string taken = " (no span of the node covers it: the pointer went past its span)";
  if (use.taken_file != nullptr) {
    const std::string file = places_.path_of ? places_.path_of(use.taken_file) : std::string(use.taken_file);
    taken = fmt::format(" (the span was taken at {}:{})", file, use.taken_line);
  }
  throw DsmError(fmt::format(
      "node {} {} element {} of '{}' through a span that {} invalidated, {}{}: a span is valid until "
      "the node's next synchronization; take a new span after each lock acquire, lock release and barrier",
      emu::index(n), verb, use.offset / region.element_size, region.name, sync_name(use.closed_by),
      code_place(use.pc, use.stack_top), taken));
}

}  // namespace ncp2::dsm
