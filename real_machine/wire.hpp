#pragma once
// The messages the nodes of a real run exchange (over UCX, real_machine/transport.hpp): a tag per kind and a
// flat little-endian byte encoding (the same binary on every host, so no conversion). Reading past the end of
// a message throws: a malformed message is a bug or a foreign peer, never silently accepted.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "lrc/history.hpp"
#include "lrc/types.hpp"

namespace ncp2::real {

// The protocol's messages keep the core's kinds as their tags (lrc::MessageKind, whose meaning
// and contents are defined there); the rest are this transport's own.
enum class Tag : int {
  PageRequest = lrc::kPageRequest,        // page -> PageReply (to the page's home)
  PageReply = lrc::kPageReply,            // page, its bytes
  DiffRequest = lrc::kDiffRequest,        // page, the writer's intervals -> DiffReply
  DiffReply = lrc::kDiffReply,            // page, (interval, diff bytes)..., the service time
  LockRequest = lrc::kLockRequest,        // to the lock's manager: lock, requester, its vector time
  LockForward = lrc::kLockForward,        // the manager to the last requester: the same
  LockGrant = lrc::kLockGrant,            // lock, the holder's vector time, the records the acquirer lacks
  BarrierArrive = lrc::kBarrierArrival,   // to the manager: barrier, vector time, usage, records
  BarrierRelease = lrc::kBarrierRelease,  // to each: merged time, records it lacks, collect?, node 0's data
  MallocRequest = 30,                     // to node 0: size -> MallocReply
  MallocReply,                            // address (0: failed, with the reason)
  FreeRequest,                            // to node 0: address -> FreeReply
  FreeReply,
  Abort,       // a node failed (or node 0 found a deadlock): kind, message; every node stops
  Blocked,     // to node 0: what the node now waits for (a lock, a barrier) or that it waits no more
  HeldQuery,   // node 0 to each, when every node waits: which locks do you hold?
  HeldReply,   // the locks and where they were acquired
  PlaceQuery,  // node 0 to each, at --max-wall: where is your program?
  PlaceReply,  // its scope and its last TreadMarks call
  Hello,       // at Tmk_startup, to every other node: the run starts once every node's came
  Connect,     // the transport's own, when it starts: one over every pair (Transport::connect_all)
};

// A message kind as the timeline names the service thread's work (the
// protocol's kinds by lrc::message_kind_name, as the emulated runs name them).
std::string_view to_string(Tag tag);

class WireWriter {
 public:
  WireWriter& u32(std::uint32_t v) { return raw(&v, sizeof v); }
  WireWriter& u64(std::uint64_t v) { return raw(&v, sizeof v); }
  WireWriter& i64(std::int64_t v) { return raw(&v, sizeof v); }
  WireWriter& bytes(std::span<const std::byte> b) {
    u64(b.size());
    return raw(b.data(), b.size());
  }
  WireWriter& text(std::string_view s) { return bytes(std::as_bytes(std::span(s.data(), s.size()))); }
  WireWriter& u32s(std::span<const std::uint32_t> v) {
    u64(v.size());
    return raw(v.data(), v.size_bytes());
  }
  [[nodiscard]] std::vector<std::byte> take() && { return std::move(out_); }
  [[nodiscard]] const std::vector<std::byte>& data() const { return out_; }

 private:
  WireWriter& raw(const void* p, std::size_t n) {
    const auto* b = static_cast<const std::byte*>(p);
    out_.insert(out_.end(), b, b + n);
    return *this;
  }
  std::vector<std::byte> out_;
};

class WireReader {
 public:
  explicit WireReader(std::span<const std::byte> in) : in_(in) {}
  std::uint32_t u32() { return scalar<std::uint32_t>(); }
  std::uint64_t u64() { return scalar<std::uint64_t>(); }
  std::int64_t i64() { return scalar<std::int64_t>(); }
  std::span<const std::byte> bytes() {
    const std::uint64_t n = u64();
    need(n);
    auto s = in_.subspan(at_, n);
    at_ += n;
    return s;
  }
  std::string text() {
    const auto b = bytes();
    return {reinterpret_cast<const char*>(b.data()), b.size()};
  }
  std::vector<std::uint32_t> u32s() {
    const std::uint64_t n = u64();
    if (n > (in_.size() - at_) / 4) throw std::runtime_error("malformed message: a list overruns it");
    std::vector<std::uint32_t> v(n);
    if (n == 0) return v;  // memcpy of nothing from or to null is still undefined (fuzz: real_wire)
    std::memcpy(v.data(), in_.data() + at_, n * 4);
    at_ += n * 4;
    return v;
  }
  [[nodiscard]] bool done() const { return at_ == in_.size(); }

 private:
  template <class T>
  T scalar() {
    need(sizeof(T));
    T v;
    std::memcpy(&v, in_.data() + at_, sizeof(T));
    at_ += sizeof(T);
    return v;
  }
  void need(std::uint64_t n) const {
    if (n > in_.size() - at_) throw std::runtime_error("malformed message: shorter than its contents");
  }
  std::span<const std::byte> in_;
  std::size_t at_ = 0;
};

// Interval records on the wire: creator, sequence, vector time, pages.
inline void write_records(WireWriter& w, const std::vector<const lrc::IntervalRecord*>& records) {
  w.u64(records.size());
  for (const lrc::IntervalRecord* r : records) {
    w.u32(static_cast<std::uint32_t>(lrc::index(r->creator))).u32(r->seq).u32s(r->vt).u64(r->pages.size());
    for (lrc::PageId p : r->pages) w.u32(lrc::raw(p));
  }
}
// Refuses a record of a page beyond `pages` (the heap's).
inline std::vector<lrc::IntervalRecord> read_records(WireReader& r, std::uint32_t pages) {
  std::vector<lrc::IntervalRecord> out;
  for (std::uint64_t i = 0, n = r.u64(); i < n; ++i) {
    lrc::IntervalRecord rec;
    const std::uint32_t creator = r.u32();
    if (creator > 0xffff) throw std::runtime_error("malformed message: an interval of an unknown node");
    rec.creator = lrc::node_id(static_cast<int>(creator));
    rec.seq = r.u32();
    rec.vt = r.u32s();
    for (std::uint64_t k = 0, n_pages = r.u64(); k < n_pages; ++k) {
      const std::uint32_t page = r.u32();
      if (page >= pages) throw std::runtime_error("malformed message: a page outside the heap");
      rec.pages.push_back(lrc::PageId{page});
    }
    out.push_back(std::move(rec));
  }
  return out;
}

}  // namespace ncp2::real
