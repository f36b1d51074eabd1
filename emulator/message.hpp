#pragma once
// Messages between nodes, and the chain of time stamps each one carries. Resources stamp a
// message as it passes (queued in a CP, started, injected, delivered, ...); a reply can inherit
// its request's chain, which is how a wait is later cut into the 13 intervals of CARNIVAL.
#include <algorithm>
#include <array>
#include <cstdint>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include "emulator/ids.hpp"
#include "emulator/time.hpp"

namespace ncp2::emu {

enum class StampPoint : std::uint8_t {
  Issued,          // the PP decided to send (or to wait: t0 of a wait)
  CpQueued,        // a command carrying the message entered a CP's FIFO
  CpStarted,       // the CP began executing it
  CpFinished,      // the CP finished executing it
  Injected,        // the message's head entered the network
  Delivered,       // the message's tail reached the destination interface
  PpInterrupted,   // an interrupt carrying it was raised at a PP
  PpHandlerStart,  // the PP's handler began (after queueing and the interrupt overhead)
  PpHandlerEnd,    // the PP's handler finished
  PpResumed,       // the waiting PP resumed
  WaitBegin,       // t0: the PP starts waiting for this request's answer
  SyncDelayBegin,  // from here the request waits for another processor (node = the cause)
  SyncDelayEnd,    // the other processor released it
};
std::string_view to_string(StampPoint p);

struct Stamp {
  TimePoint time;
  StampPoint point{};
  Resource resource{};
  NodeId node{};
  std::uint32_t aux = 0;  // with SyncDelay stamps: the cause's scope
};

// Fixed capacity: a request/reply round trip, even forwarded, records fewer than 32 stamps.
// Extra stamps are counted in `dropped` rather than growing the message.
class StampChain {
 public:
  static constexpr std::size_t kCapacity = 32;
  StampChain() = default;
  // Copies only the stamps in use (a chain is copied from request to reply on every miss).
  StampChain(const StampChain& o) : dropped_(o.dropped_), size_(o.size_) {
    std::copy_n(o.stamps_.begin(), size_, stamps_.begin());
  }
  StampChain& operator=(const StampChain& o) {
    if (this != &o) {
      size_ = o.size_;
      dropped_ = o.dropped_;
      std::copy_n(o.stamps_.begin(), size_, stamps_.begin());
    }
    return *this;
  }
  void add(TimePoint t, StampPoint p, Resource r, NodeId n, std::uint32_t aux = 0) {
    if (size_ < kCapacity)
      stamps_[size_++] = Stamp{t, p, r, n, aux};
    else
      ++dropped_;
  }
  [[nodiscard]] std::span<const Stamp> stamps() const { return {stamps_.data(), size_}; }
  [[nodiscard]] std::size_t size() const { return size_; }
  [[nodiscard]] std::size_t dropped() const { return dropped_; }
  [[nodiscard]] bool empty() const { return size_ == 0; }
  [[nodiscard]] const Stamp& back() const { return stamps_[size_ - 1]; }
  void clear() {
    size_ = 0;
    dropped_ = 0;
  }

 private:
  // dropped_ and size_ are not adjacent on purpose: a copy right after add() would otherwise
  // read both with one wide load spanning add()'s narrower store (a store-forwarding stall).
  std::size_t dropped_ = 0;
  std::array<Stamp, kCapacity> stamps_{};
  std::size_t size_ = 0;
};

struct Message {
  std::uint64_t id = 0;
  NodeId source{};
  NodeId destination{};
  std::uint16_t purpose = 0;             // meaning defined by the layer above (dsm)
  std::uint32_t payload_bytes = 0;       // bytes of content; the wire adds the header
  std::array<std::uint64_t, 4> words{};  // small protocol fields
  std::vector<std::byte> data;           // bulk content (a page, a diff), capacity reused
  StampChain chain;
  // Network progress, owned by the Network while the message is in flight.
  std::uint32_t hop = 0;
  std::uint32_t wire_bytes = 0;
  Duration serialization{0};  // wire_bytes at the link bandwidth
};

// Owns every Message of a cluster; messages are recycled, never freed mid-run.
class MessagePool {
 public:
  Message* acquire() {
    Message* m;
    if (free_.empty()) {
      all_.push_back(std::make_unique<Message>());
      m = all_.back().get();
    } else {
      m = free_.back();
      free_.pop_back();
    }
    m->id = ++next_id_;
    return m;
  }
  void release(Message* m) {
    m->data.clear();
    m->chain.clear();
    m->words = {};
    m->hop = 0;
    free_.push_back(m);
  }
  [[nodiscard]] std::size_t live() const { return all_.size() - free_.size(); }
  [[nodiscard]] std::uint64_t created() const { return next_id_; }

 private:
  std::vector<std::unique_ptr<Message>> all_;
  std::vector<Message*> free_;
  std::uint64_t next_id_ = 0;
};

}  // namespace ncp2::emu
