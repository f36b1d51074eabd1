// Access faults on the emulated machine: a read or write to a page this node lacks or holds stale,
// the page fetched from its home, the diffs of its concurrent writers, a first write's twin. The
// decisions are the core's (lrc::Node); here they become messages, waits and stamps.
#include <cstring>

#include "dsm/runtime.hpp"
#include "dsm/runtime_internal.hpp"

namespace ncp2::dsm {

using emu::Message;
using emu::WorkContext;

void Runtime::fault(NodeId n, std::uint32_t region, std::uint32_t local_page, Access wanted) {
  const MeasuredEntry measured(*this, n);
  checks_.at_entry(n);
  self(n).driver.access(page_of(region, local_page), wanted);
}

void Runtime::fault_taken_at_once(NodeId n, std::uint32_t region, std::uint32_t local_page) {
  struct TimedByProgram {  // cleared however the fault ends (a failed run throws through it)
    explicit TimedByProgram(NodeState& state, bool timed) : ns(state) { ns.timed_by_program = timed; }
    ~TimedByProgram() { ns.timed_by_program = false; }
    TimedByProgram(const TimedByProgram&) = delete;
    TimedByProgram& operator=(const TimedByProgram&) = delete;
    NodeState& ns;
  };
  const TimedByProgram timed(self(n), meter_ != nullptr);
  fault(n, region, local_page, Access::Write);
}

bool Runtime::write_fault_is_local(NodeId n, std::uint32_t region, std::uint32_t local_page) const {
  return nodes_[static_cast<std::size_t>(emu::index(n))]->lrc.write_is_local(page_of(region, local_page));
}

void Runtime::fetch_page(NodeState& ns, PageId page, NodeId home) {
  Message* m = new_message(ns.id, home, kPageRequest, 8);
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

// The driver's requests (one per writer, in node order), all posted by one LOCAL_DIFF_REQUEST.
void Runtime::fetch_diffs(NodeState& ns, PageId page, std::span<const lrc::DiffRequest> requests) {
  ns.fanout.clear();
  for (const lrc::DiffRequest& r : requests) {
    Message* m = new_message(ns.id, r.writer, kDiffRequest, 8 + 4 * r.intervals.size());
    m->words[0] = raw(page);
    m->data.resize(r.intervals.size_bytes());
    std::memcpy(m->data.data(), r.intervals.data(), r.intervals.size_bytes());
    ns.fanout.push_back(m);
  }
  ns.outstanding = static_cast<int>(requests.size());
  ns.wait_requests = static_cast<std::uint32_t>(requests.size());
  send_request(ns, ns.fanout.front(), LocalCommand::DiffRequest);
  wait_until_done(ns, Operation::DiffFetch, raw(page));
}

void Runtime::serve_diff_request(WorkContext& ctx, Message* m) {
  NodeState& ns = self(ctx.node());
  Costs costs(*this, ns, &ctx);
  const PageId page{static_cast<std::uint32_t>(m->words[0])};
  std::vector<std::byte>& reply = ns.reply_buffer;
  reply.clear();
  // The reply carries the real encodings (with their byte masks) but is charged the word-run sizes.
  const std::size_t modeled = lrc::encode_diff_reply(ns.lrc, page, m->data, costs, reply);
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
  lrc::take_diff_reply(ns.lrc, m->source, m->data, costs);
  if (--ns.outstanding > 0) {
    cluster_.release(m);
    return;
  }
  ns.lrc.apply_received(PageId{static_cast<std::uint32_t>(m->words[0])});
  finish_wait(ctx, ns, m);
  cluster_.release(m);
}

}  // namespace ncp2::dsm
