// Access faults on the emulated machine: a read or write to a page this node lacks or holds stale,
// the page fetched from its home, the diffs of its concurrent writers, a first write's twin. The
// decisions are the core's (lrc::Node); here they become messages, waits and stamps.
#include <array>

#include "dsm/runtime.hpp"
#include "dsm/runtime_internal.hpp"

namespace ncp2::dsm {

using emu::Message;
using emu::WorkContext;

void Runtime::fault(NodeId n, std::uint32_t region, std::uint32_t local_page, Access wanted) {
  const MeasuredEntry measured(*this, n);
  if (spans_) [[unlikely]]
    check_stale(n);
  validate_page(self(n), page_of(region, local_page), wanted);
}

bool Runtime::write_fault_is_local(NodeId n, std::uint32_t region, std::uint32_t local_page) const {
  if (meter_) return false;
  return nodes_[static_cast<std::size_t>(emu::index(n))]->lrc.write_is_local(page_of(region, local_page));
}

void Runtime::validate_page(NodeState& ns, PageId page, Access wanted) {
  if (ns.lrc.access(page) == Access::None) {
    OperationScope op(*ns.pp, ns.lrc.begin_fault(page));
    ns.pp->compute(config_.dsm.fault_trap);
    if (!ns.lrc.holds(page)) fetch_page(ns, page);
    if (ns.lrc.has_notices(page)) {
      ns.pp->set_operation(static_cast<std::uint8_t>(Operation::DiffFetch));
      fetch_diffs(ns, page);
    }
    ns.lrc.grant_read(page);
  }
  if (wanted == Access::Write && ns.lrc.access(page) != Access::Write) {
    OperationScope op(*ns.pp, Operation::WriteFault);
    begin_write(ns, page);
  }
}

void Runtime::begin_write(NodeState& ns, PageId page) {
  if (!cluster_.has_cp()) ns.pp->compute(config_.dsm.fault_trap);  // the write-protection fault
  Costs costs(*this, ns, nullptr);
  ns.lrc.begin_write(page, costs);
}

void Runtime::fetch_page(NodeState& ns, PageId page) {
  Message* m = new_message(ns.id, ns.lrc.request_page(page), kPageRequest, 8);
  m->words[0] = raw(page);
  send_request(ns, m, LocalCommand::PageRequest);
  wait_until_done(ns, Operation::PageFault, raw(page));
}

void Runtime::serve_page_request(WorkContext& ctx, Message* m) {
  const PageId page{static_cast<std::uint32_t>(m->words[0])};
  const auto bytes = self(ctx.node()).lrc.serve_page(page);
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
  ns.lrc.install_page(PageId{static_cast<std::uint32_t>(m->words[0])}, m->data);
  finish_wait(ctx, ns, m);
  cluster_.release(m);
}

// One request per writer, in node order (deterministic), listing that writer's intervals.
void Runtime::fetch_diffs(NodeState& ns, PageId page) {
  const std::span<const lrc::Notice> notices = ns.lrc.plan_diff_fetch(page);
  ns.fanout.clear();
  Message* first = nullptr;
  std::uint32_t writers = 0;
  for (std::size_t i = 0; i < notices.size();) {
    std::size_t j = i;
    while (j < notices.size() && notices[j].writer == notices[i].writer) ++j;
    Message* m = new_message(ns.id, notices[i].writer, kDiffRequest, 8 + 4 * (j - i));
    m->words[0] = raw(page);
    m->data.resize((j - i) * 4);
    for (std::size_t k = i; k < j; ++k) std::memcpy(m->data.data() + (k - i) * 4, &notices[k].interval, 4);
    ns.fanout.push_back(m);
    if (!first) first = m;
    ++writers;
    i = j;
  }
  ns.outstanding = static_cast<int>(writers);
  ns.wait_requests = writers;
  send_request(ns, first, LocalCommand::DiffRequest);
  wait_until_done(ns, Operation::DiffFetch, raw(page));
}

void Runtime::serve_diff_request(WorkContext& ctx, Message* m) {
  NodeState& ns = self(ctx.node());
  Costs costs(*this, ns, &ctx);
  const PageId page{static_cast<std::uint32_t>(m->words[0])};
  const std::size_t count = m->data.size() / 4;
  std::vector<std::byte>& reply = ns.reply_buffer;
  reply.clear();
  // The reply carries the real encodings (with their byte masks) but is charged the word-run sizes.
  std::size_t modeled = 0;
  std::size_t diff_bytes = 0;
  for (std::size_t k = 0; k < count; ++k) {
    std::uint32_t interval;  // read in place: the request's buffer is only replaced below
    std::memcpy(&interval, m->data.data() + k * 4, 4);
    const lrc::Diff& d = ns.lrc.diff_for(page, interval, costs);
    const std::array<std::uint32_t, 2> header = {interval, static_cast<std::uint32_t>(d.encoded_bytes())};
    const auto* h = reinterpret_cast<const std::byte*>(header.data());
    reply.insert(reply.end(), h, h + sizeof(header));
    reply.insert(reply.end(), d.encoded().begin(), d.encoded().end());
    modeled += sizeof(header) + d.modeled_bytes();
    diff_bytes += d.modeled_bytes();
  }
  ns.lrc.diffs_served(page, diff_bytes, costs);
  m->data.swap(reply);  // the message's old buffer becomes the next reply buffer
  std::swap(m->source, m->destination);
  m->purpose = kDiffReply;
  m->payload_bytes = static_cast<std::uint32_t>(8 + modeled);
  send_from_handler(ctx, m);
  // The writer's PP learns who asked.
  cluster_.notify_pp(
      ctx, [](WorkContext&) {}, emu::HandlerTag{true, static_cast<std::uint8_t>(Operation::DiffFetch)});
}

void Runtime::receive_diffs(WorkContext& ctx, Message* m) {
  NodeState& ns = self(ctx.node());
  Costs costs(*this, ns, &ctx);
  const PageId page{static_cast<std::uint32_t>(m->words[0])};
  std::size_t at = 0;
  while (at + 8 <= m->data.size()) {
    std::array<std::uint32_t, 2> header{};
    std::memcpy(header.data(), m->data.data() + at, sizeof(header));
    at += 8;
    ns.lrc.receive_diff(m->source, header[0], std::span<const std::byte>(m->data.data() + at, header[1]),
                        costs);
    at += header[1];
  }
  if (--ns.outstanding > 0) {
    cluster_.release(m);
    return;
  }
  ns.lrc.apply_received(page);
  finish_wait(ctx, ns, m);
  cluster_.release(m);
}

}  // namespace ncp2::dsm
