// Twins and diffs: a page's first write in an interval (twin), diff creation, and fetching the
// diffs of a page's concurrent writers on an access miss (requests, service, application).
#include "dsm/runtime.hpp"

#include <array>

#include "dsm/runtime_internal.hpp"

namespace ncp2::dsm {

using emu::Message;
using emu::WorkContext;

// The diff of `page` for own interval `interval`, created from the twin if not yet done, encoded
// if it was deferred. On the treadmarks machine software does it on the PP (cost per word); on
// ncp2 the CP's hardware does it (its command cost covers it). The reference stays valid until
// the page's next diff is made.
const Diff& Runtime::make_diff(NodeState& ns, PageId page, std::uint32_t interval, WorkContext* ctx) {
  PageState& ps = ns.pages[raw(page)];
  for (auto& own : ps.diffs)
    if (own.interval == interval) return encode_deferred(ns, own);
  if (!ps.has_twin() || ps.twin_interval != interval)
    throw std::logic_error(fmt::format("node {} has no diff and no twin for page {} interval {}",
                                       emu::index(ns.id), raw(page), interval));
  Diff d = Diff::between(ns.twins.bytes(ps.twin), page_bytes(ns.id, page), config_.memory.word_size,
                         spare_diff_buffer(ns));
  charge_new_diff(ns, ps, DiffSize{d.runs(), d.words()}, ctx);
  drop_twin(ns, ps);
  ++ns.stats.diffs_created;
  ns.diff_bytes += d.modeled_bytes();  // the machine's word-run size, not the byte masks (diff.hpp)
  ps.diffs.push_back({interval, std::move(d)});
  return ps.diffs.back().diff;
}

// A page's first write in an interval while its twin still separates an older interval's writes:
// that interval's diff is made as make_diff would (same sizes, charges and moment), but only its
// size is computed, in the pass that copies the page into the new twin; the diff keeps the old
// twin and the new one (the page as the interval left it) and is encoded if someone asks for it.
// Returns the new twin's buffer, one holder for the caller.
std::uint32_t Runtime::defer_diff(NodeState& ns, PageId page) {
  PageState& ps = ns.pages[raw(page)];
  const int ws = config_.memory.word_size;
  const std::uint32_t before = ps.twin;
  const std::uint32_t after = ns.twins.acquire(page_size_);
  const DiffSize size =
      Diff::size_and_copy(ns.twins.bytes(before), page_bytes(ns.id, page), ws, ns.twins.bytes(after));
  OwnDiff own;
  own.interval = ps.twin_interval;
  if (size.modeled_bytes(ws) * 4 < page_size_) {
    // A small diff is encoded now, from the two twins still in cache: a deferred diff holds a
    // page-sized buffer, and the GC threshold bounds the diffs' modeled bytes, so deferring only
    // diffs of a quarter page or more keeps the host memory within 4 x that bound.
    own.diff = Diff::between(ns.twins.bytes(before), ns.twins.bytes(after), ws, spare_diff_buffer(ns));
  } else {
    // The diff's own holds: a handler run while the PP is charged the diff may take the twin (and
    // make this interval's diff itself, as it would have before).
    own.before = before;
    own.after = after;
    ns.twins.retain(before);
    ns.twins.retain(after);
  }
  charge_new_diff(ns, ps, size, nullptr);
  drop_twin(ns, ps);
  ++ns.stats.diffs_created;
  ns.diff_bytes += size.modeled_bytes(ws);
  ps.diffs.push_back(std::move(own));
  return after;
}

const Diff& Runtime::encode_deferred(NodeState& ns, OwnDiff& own) {
  if (!own.deferred()) return own.diff;
  own.diff = Diff::between(ns.twins.bytes(own.before), ns.twins.bytes(own.after), config_.memory.word_size,
                           spare_diff_buffer(ns));
  release_deferred(ns, own);
  return own.diff;
}

void Runtime::release_deferred(NodeState& ns, OwnDiff& own) {
  if (!own.deferred()) return;
  ns.twins.release(own.before);
  ns.twins.release(own.after);
  own.before = PageBuffers::kNone;
  own.after = PageBuffers::kNone;
}

// A new diff's cost: lazily added to what the diff TreadMarks makes later will be charged;
// otherwise on the PP (treadmarks; on ncp2 the CP's command cost covers it).
void Runtime::charge_new_diff(NodeState& ns, PageState& ps, DiffSize size, WorkContext* ctx) {
  if (lazy_diffs()) {
    ps.uncharged_words += static_cast<std::uint32_t>(size.words);
    ps.uncharged_runs += static_cast<std::uint32_t>(size.runs);
  } else if (!cluster_.has_cp()) {
    const emu::Duration cost = diff_cost(size.words, size.runs);
    if (ctx)
      ctx->spend(cost);
    else
      ns.pp->compute(cost);
  }
}

void Runtime::drop_twin(NodeState& ns, PageState& ps) {
  if (ps.has_twin()) ns.twins.release(ps.twin);
  ps.twin = PageBuffers::kNone;
  ps.twin_interval = 0;
}

std::vector<std::byte> Runtime::spare_diff_buffer(NodeState& ns) {
  std::vector<std::byte> storage;
  if (!ns.spare_diff_buffers.empty()) {
    storage = std::move(ns.spare_diff_buffers.back());
    ns.spare_diff_buffers.pop_back();
  }
  return storage;
}

emu::Duration Runtime::diff_cost(std::size_t words, std::size_t runs) const {
  const auto scanned =
      static_cast<std::int64_t>(page_size_ / static_cast<std::size_t>(config_.memory.word_size));
  return config_.dsm.diff_scan_per_word * scanned +
         config_.dsm.diff_encode_per_word * static_cast<std::int64_t>(words) +
         config_.dsm.diff_per_run * static_cast<std::int64_t>(runs);
}

// TreadMarks makes one diff of the twin it kept since the page's first write after the last diff:
// one scan of the page, the changed words of every interval since (their sum: an upper bound of
// the words of that one diff). The twin is gone after it: the page's next write makes a new one.
void Runtime::charge_lazy_diff(NodeState& ns, PageId page, WorkContext* ctx) {
  PageState& ps = ns.pages[raw(page)];
  if (!lazy_diffs() || !ps.modeled_twin) return;
  const emu::Duration cost = diff_cost(ps.uncharged_words, ps.uncharged_runs);
  ps.modeled_twin = false;
  ps.uncharged_words = 0;
  ps.uncharged_runs = 0;
  if (ctx)
    ctx->spend(cost);
  else
    ns.pp->compute(cost);
}

void Runtime::fetch_diffs(NodeState& ns, PageId page) {
  PageState& ps = ns.pages[raw(page)];
  // One request per writer, in node order (deterministic), listing that writer's intervals.
  auto& notices = ps.notices;
  std::sort(notices.begin(), notices.end());
  notices.erase(std::unique(notices.begin(), notices.end()), notices.end());
  ns.received.clear();
  ns.receive_buffer.clear();
  ns.fanout.clear();
  Message* first = nullptr;
  std::uint32_t writers = 0;
  for (std::size_t i = 0; i < notices.size();) {
    std::size_t j = i;
    while (j < notices.size() && notices[j].first == notices[i].first) ++j;
    Message* m = new_message(ns.id, notices[i].first, kDiffRequest, 8 + 4 * (j - i));
    m->words[0] = raw(page);
    m->data.resize((j - i) * 4);
    for (std::size_t k = i; k < j; ++k) std::memcpy(m->data.data() + (k - i) * 4, &notices[k].second, 4);
    ns.fanout.push_back(m);
    if (!first) first = m;
    ++ns.stats.diff_requests;
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
  const PageId page{static_cast<std::uint32_t>(m->words[0])};
  const std::size_t count = m->data.size() / 4;
  std::vector<std::byte>& reply = ns.reply_buffer;
  reply.clear();
  // The reply carries the real encodings (with their byte masks) but is charged the word-run sizes.
  std::size_t modeled = 0;
  for (std::size_t k = 0; k < count; ++k) {
    std::uint32_t interval;  // read in place: the request's buffer is only replaced below
    std::memcpy(&interval, m->data.data() + k * 4, 4);
    const Diff& d = make_diff(ns, page, interval, &ctx);
    const std::array<std::uint32_t, 2> header = {interval, static_cast<std::uint32_t>(d.encoded_bytes())};
    const auto* h = reinterpret_cast<const std::byte*>(header.data());
    reply.insert(reply.end(), h, h + sizeof(header));
    reply.insert(reply.end(), d.encoded().begin(), d.encoded().end());
    modeled += sizeof(header) + d.modeled_bytes();
  }
  charge_lazy_diff(ns, page, &ctx);  // the one diff TreadMarks makes, once every interval's is in
  m->data.swap(reply);               // the message's old buffer becomes the next reply buffer
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
  const PageId page{static_cast<std::uint32_t>(m->words[0])};
  const NodeId writer = m->source;
  std::size_t at = 0;
  std::size_t words = 0;
  while (at + 8 <= m->data.size()) {
    std::array<std::uint32_t, 2> header{};
    std::memcpy(header.data(), m->data.data() + at, sizeof(header));
    at += 8;
    const std::size_t offset = ns.receive_buffer.size();
    ns.receive_buffer.insert(ns.receive_buffer.end(), m->data.begin() + static_cast<std::ptrdiff_t>(at),
                             m->data.begin() + static_cast<std::ptrdiff_t>(at + header[1]));
    // The word count of the runs (the machine applies words; a byte mask adds no modelled cost).
    words += Diff::count_words(std::span<const std::byte>(m->data.data() + at, header[1]),
                               config_.memory.word_size);
    at += header[1];
    ns.received.push_back({writer, header[0], offset, header[1]});
  }
  if (!cluster_.has_cp()) ctx.spend(config_.dsm.diff_apply_per_word * static_cast<std::int64_t>(words));
  if (--ns.outstanding > 0) {
    cluster_.release(m);
    return;
  }
  // Every reply is in: apply in happens-before order (concurrent diffs touch disjoint bytes; they
  // may share words, since a diff writes only its changed bytes).
  std::sort(ns.received.begin(), ns.received.end(), [this](const ReceivedDiff& a, const ReceivedDiff& b) {
    const auto ka = intervals_[static_cast<std::size_t>(emu::index(a.writer))][a.interval - 1].order_key;
    const auto kb = intervals_[static_cast<std::size_t>(emu::index(b.writer))][b.interval - 1].order_key;
    if (ka != kb) return ka < kb;
    if (a.writer != b.writer) return a.writer < b.writer;
    return a.interval < b.interval;
  });
  auto bytes = page_bytes(ns.id, page);
  for (const auto& r : ns.received)
    Diff::apply_encoded(std::span<const std::byte>(ns.receive_buffer.data() + r.offset, r.bytes), bytes,
                        config_.memory.word_size);
  ns.stats.diffs_applied += ns.received.size();
  PageState& ps = ns.pages[raw(page)];
  ns.notice_count -= std::min(ns.notice_count, ps.notices.size());
  ps.notices.clear();
  ns.received.clear();
  finish_wait(ctx, ns, m);
  cluster_.release(m);
}

void Runtime::begin_write(NodeState& ns, PageId page) {
  PageState& ps = ns.pages[raw(page)];
  const auto me = static_cast<std::size_t>(emu::index(ns.id));
  const std::uint32_t current = ns.vt[me] + 1;
  const bool software = !cluster_.has_cp();
  if (software) ns.pp->compute(config_.dsm.fault_trap);  // write-protection fault
  std::uint32_t copy = PageBuffers::kNone;               // a buffer already holding the page, if any
  if (ps.has_twin() && ps.twin_interval != current) copy = defer_diff(ns, page);
  if (ps.has_twin()) {
    if (copy != PageBuffers::kNone) ns.twins.release(copy);  // not reached: defer_diff drops the twin
  } else {
    if (copy == PageBuffers::kNone) {
      const auto bytes = page_bytes(ns.id, page);
      copy = ns.twins.acquire(bytes.size());
      std::ranges::copy(bytes, ns.twins.bytes(copy).begin());
    }
    ps.twin = copy;
    ps.twin_interval = current;
    ++ns.stats.twins;
    // Lazily, TreadMarks still has the twin it made at an earlier interval's first write.
    const bool copies = software && !(lazy_diffs() && ps.modeled_twin);
    ps.modeled_twin = lazy_diffs();
    if (copies) {
      const emu::TimePoint now = kernel_.now();
      const emu::TimePoint copied =
          ns.pp->bus().transfer(now, static_cast<std::int64_t>(page_size_), config_.pp.copy_bandwidth);
      ns.pp->compute(copied - now);
    }
  }
  ns.dirty.push_back(page);
  const std::uint32_t r = page_region_[raw(page)];
  ns.regions[r].access[raw(page) - regions_[r].first_page] = static_cast<std::uint8_t>(Access::Write);
  ns.note_access_change(page);
}

}  // namespace ncp2::dsm
