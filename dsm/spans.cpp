// Stale spans in the runtime: checking switched on, spans taken into the current views, views
// closed at each synchronization, and a stale use reported at the node's next DSM entry
// (dsm/span_checker.hpp has the mechanism).
#include "dsm/runtime.hpp"

#include "dsm/runtime_internal.hpp"
#include "dsm/span_checker.hpp"

namespace ncp2::dsm {

void Runtime::check_spans() {
  if (spans_) return;
  if (!regions_.empty())
    throw std::logic_error("Runtime::check_spans must be called before the first shared array is allocated");
  spans_ = std::make_unique<SpanChecker>(nodes());
}

std::byte* Runtime::take_span(NodeId n, std::uint32_t region, std::size_t offset, std::size_t bytes,
                              const char* file, int line) {
  check_stale(n);
  if (!spans_->checks(region)) return region_data(n, region);
  return spans_->take(emu::index(n), region, offset, bytes, file, line);
}

void Runtime::check_stale(NodeId n) {
  if (spans_->stale(emu::index(n))) [[unlikely]]
    report_stale(n);
}

void Runtime::close_spans(NodeId n, Operation op, std::uint32_t id) {
  check_stale(n);  // a use before this synchronization is reported as such, not after it
  spans_->synchronize(emu::index(n), SyncPoint{op, id});
}

namespace {

std::string sync_name(const SyncPoint& sync) {
  switch (sync.operation) {
    case Operation::LockAcquire:
      return fmt::format("its acquire of lock {}", sync.id);
    case Operation::LockRelease:
      return fmt::format("its release of lock {}", sync.id);
    case Operation::Barrier:
      return barrier_name(sync.id);
    default:
      return "a synchronization";
  }
}

}  // namespace

// "at workloads/sor.cpp:123"; in a leaf library function (memcpy), the line that called it.
std::string Runtime::code_place(std::uint64_t pc, std::uint64_t stack_top) const {
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
void Runtime::report_stale(NodeId n) {
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
