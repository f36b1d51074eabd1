#pragma once
// The messages the nodes of a real run exchange over MPI: a tag per kind and a flat little-endian
// byte encoding (the same binary on every host, so no conversion). Reading past the end of a
// message throws: a malformed message is a bug or a foreign peer, never silently accepted.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace ncp2::real {

enum class Tag : int {
  DiffRequest = 1,  // page, creator's interval numbers -> DiffReply
  DiffReply,        // page, (interval, diff bytes)...
  LockRequest,      // to the lock's manager: lock, requester, its vector time
  LockForward,      // the manager to the last requester: the same
  LockGrant,        // the releaser to the acquirer: lock, intervals the acquirer lacks
  BarrierArrive,    // to node 0: barrier, node, vector time, its new intervals (+ node 0's data)
  BarrierRelease,   // node 0 to each: intervals it lacks, distributed data
  MallocRequest,    // to node 0: size -> MallocReply
  MallocReply,      // address (0: failed, with the reason)
  FreeRequest,      // to node 0: address -> FreeReply
  FreeReply,
  Abort,      // a node failed (or node 0 found a deadlock): kind, message; every node stops
  Blocked,    // to node 0: what the node now waits for (a lock, a barrier) or that it waits no more
  HeldQuery,  // node 0 to each, when every node waits: which locks do you hold?
  HeldReply,  // the locks and where they were acquired
};

// "diff request", ...: a message kind as the timeline names the service thread's work.
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

}  // namespace ncp2::real
