// Access faults: a read or write to a page this node lacks or holds stale; fetching a whole page.
#include "dsm/runtime.hpp"

#include "dsm/runtime_internal.hpp"

namespace ncp2::dsm {

using emu::Message;
using emu::WorkContext;

void Runtime::fault(NodeId n, std::uint32_t region, std::uint32_t local_page, Access wanted) {
  const MeasuredEntry measured(*this, n);
  if (spans_) [[unlikely]]
    check_stale(n);
  NodeState& ns = self(n);
  const PageId page{regions_.at(region).first_page + local_page};
  validate_page(ns, page, wanted);
}

bool Runtime::write_fault_is_local(NodeId n, std::uint32_t region, std::uint32_t local_page) const {
  if (meter_) return false;
  const NodeState& ns = *nodes_[static_cast<std::size_t>(emu::index(n))];
  const std::uint32_t page = regions_.at(region).first_page + local_page;
  const PageState& ps = ns.pages[page];
  return ns.regions[region].access[local_page] == static_cast<std::uint8_t>(Access::Read) && ps.held &&
         ps.notices.empty();
}

void Runtime::validate_page(NodeState& ns, PageId page, Access wanted) {
  PageState& ps = ns.pages[raw(page)];
  const std::uint32_t r = page_region_[raw(page)];
  const std::uint32_t local = raw(page) - regions_[r].first_page;
  if (ns.regions[r].access[local] == static_cast<std::uint8_t>(Access::None)) {
    OperationScope op(*ns.pp, ps.held ? Operation::DiffFetch : Operation::PageFault);
    ++ns.stats.page_faults;
    ns.pp->compute(config_.dsm.fault_trap);
    if (!ps.held) fetch_page(ns, page);
    if (!ns.pages[raw(page)].notices.empty()) {
      ns.pp->set_operation(static_cast<std::uint8_t>(Operation::DiffFetch));
      fetch_diffs(ns, page);
    }
    ns.regions[r].access[local] = static_cast<std::uint8_t>(Access::Read);
    ns.note_access_change(page);
  }
  if (wanted == Access::Write && ns.regions[r].access[local] != static_cast<std::uint8_t>(Access::Write)) {
    OperationScope op(*ns.pp, Operation::WriteFault);
    begin_write(ns, page);
  }
}

void Runtime::fetch_page(NodeState& ns, PageId page) {
  const NodeId home = page_home(page);
  ++ns.stats.page_requests;
  Message* m = new_message(ns.id, home, kPageRequest, 8);
  m->words[0] = raw(page);
  send_request(ns, m, LocalCommand::PageRequest);
  wait_until_done(ns, Operation::PageFault, raw(page));
}

void Runtime::serve_page_request(WorkContext& ctx, Message* m) {
  const PageId page{static_cast<std::uint32_t>(m->words[0])};
  const auto bytes = page_bytes(ctx.node(), page);
  m->data.assign(bytes.begin(), bytes.end());
  std::swap(m->source, m->destination);
  m->purpose = kPageReply;
  m->payload_bytes = static_cast<std::uint32_t>(page_size_ + 8);
  send_from_handler(ctx, m);
  // The home's PP is told who now has a copy (off the requester's path).
  cluster_.notify_pp(
      ctx, [](WorkContext&) {}, emu::HandlerTag{true, static_cast<std::uint8_t>(Operation::PageFault)});
}

void Runtime::receive_page(WorkContext& ctx, Message* m) {
  NodeState& ns = self(ctx.node());
  const PageId page{static_cast<std::uint32_t>(m->words[0])};
  auto bytes = page_bytes(ns.id, page);
  std::memcpy(bytes.data(), m->data.data(), page_size_);
  ns.pages[raw(page)].held = true;
  finish_wait(ctx, ns, m);
  cluster_.release(m);
}

}  // namespace ncp2::dsm
