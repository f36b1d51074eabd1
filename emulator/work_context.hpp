#pragma once
// A stretch of work done by one resource (a CP command, or a PP interrupt handler). The code of
// the work runs in zero host-visible virtual time at its start; it advances `now()` by spending
// time, and anything it causes (a message sent, an interrupt raised) happens at `now()`.
#include <cstdint>

#include "emulator/ids.hpp"
#include "emulator/memory_bus.hpp"
#include "emulator/time.hpp"

namespace ncp2::emu {

class WorkContext {
 public:
  WorkContext(TimePoint start, NodeId node, Resource resource, MemoryBus& bus, double engine_bandwidth)
      : start_(start),
        now_(start),
        node_(node),
        resource_(resource),
        bus_(&bus),
        engine_bandwidth_(engine_bandwidth) {}

  [[nodiscard]] TimePoint start() const { return start_; }
  [[nodiscard]] TimePoint now() const { return now_; }
  [[nodiscard]] Duration elapsed() const { return now_ - start_; }
  [[nodiscard]] NodeId node() const { return node_; }
  [[nodiscard]] Resource resource() const { return resource_; }

  // Computation: the resource is busy for `d`.
  void spend(Duration d) { now_ += d; }
  // A memory transfer by this resource's engine (the CP's DMA, or the PP copying): waits for
  // the shared memory bus, then occupies it.
  void transfer(std::int64_t bytes) { now_ = bus_->transfer(now_, bytes, engine_bandwidth_); }

 private:
  TimePoint start_;
  TimePoint now_;
  NodeId node_;
  Resource resource_;
  MemoryBus* bus_;
  double engine_bandwidth_;
};

}  // namespace ncp2::emu
