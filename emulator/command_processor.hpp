#pragma once
// The protocol controller (CP) of an NCP2 node: a processor that executes commands from a FIFO
// queue, one at a time, in arrival order. Commands come from the local PP or from the network.
// Each command costs its configured execution time plus whatever its body spends (DMA over the
// memory bus, further computation).
#include <algorithm>
#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>
#include "emulator/ring_queue.hpp"

#include "emulator/ids.hpp"
#include "emulator/inline_function.hpp"
#include "emulator/kernel.hpp"
#include "emulator/memory_bus.hpp"
#include "emulator/message.hpp"
#include "emulator/probe.hpp"
#include "emulator/work_context.hpp"

namespace ncp2::emu {

// Index of a command kind in the CP's cost table (CommandTable below).
enum class CommandKind : std::uint16_t {};

// The command kinds a cluster knows, with their execution cost. Names match the configuration
// keys cp.command_cost.<name>.
class CommandTable {
 public:
  CommandKind add(std::string name, Duration cost) {
    names_.push_back(std::move(name));
    costs_.push_back(cost);
    return CommandKind{static_cast<std::uint16_t>(names_.size() - 1)};
  }
  [[nodiscard]] Duration cost(CommandKind k) const { return costs_[static_cast<std::size_t>(k)]; }
  [[nodiscard]] const std::string& name(CommandKind k) const { return names_[static_cast<std::size_t>(k)]; }
  [[nodiscard]] std::size_t size() const { return names_.size(); }

 private:
  std::vector<std::string> names_;
  std::vector<Duration> costs_;
};

using CommandBody = InlineFunction<void(WorkContext&, Message*), 32>;

struct Command {
  CommandKind kind{};
  Message* message = nullptr;  // stamped CpQueued/CpStarted when present
  // Runs when the CP starts the command, after its base cost was spent; may spend more.
  CommandBody body;
};

struct CommandProcessorStats {
  Duration busy{0};
  std::uint64_t commands = 0;
  std::size_t max_queue = 0;
  Duration queue_wait{0};  // total time commands spent queued
};

class CommandProcessor {
 public:
  CommandProcessor(Kernel& kernel, NodeId node, const CommandTable& table, MemoryBus& bus,
                   double dma_bandwidth);
  CommandProcessor(const CommandProcessor&) = delete;
  CommandProcessor& operator=(const CommandProcessor&) = delete;

  // Puts a command at the tail of the queue, at the current time.
  void submit(const Command& command) { submit(command.kind, command.message, command.body); }
  // The same, for a body given as any small trivially copyable callable (the hot path).
  template <class Body>
  void submit(CommandKind kind, Message* message, Body&& body) {
    const TimePoint now = kernel_.now();
    if (message) message->chain.add(now, StampPoint::CpQueued, Resource::CP, node_);
    if (queue_.empty() && !start_scheduled_ && now >= free_at_) {
      // An idle CP starts the command at once: the same stamps, statistics and times as a pass
      // through the queue, without building the command in a slot and copying it back out.
      stats_.max_queue = std::max<std::size_t>(stats_.max_queue, 1);
      WorkContext ctx = begin_command(kind, message, now);
      if constexpr (std::is_same_v<std::decay_t<Body>, CommandBody>) {
        if (body) body(ctx, message);
      } else {
        body(ctx, message);
      }
      end_command(ctx, kind);
      return;
    }
    Queued& slot = queue_.push_slot();
    slot.command.kind = kind;
    slot.command.message = message;
    slot.command.body.emplace(std::forward<Body>(body));
    slot.enqueued = now;
    queued();
  }

  [[nodiscard]] NodeId node() const { return node_; }
  [[nodiscard]] bool busy() const { return start_scheduled_ || kernel_.now() < free_at_; }
  [[nodiscard]] std::size_t queue_length() const { return queue_.size(); }
  [[nodiscard]] const CommandProcessorStats& stats() const { return stats_; }
  [[nodiscard]] const CommandTable& table() const { return *table_; }
  void attach_probe(ActivityProbe* probe) { probe_ = probe; }

 private:
  struct Queued {
    Command command;
    TimePoint enqueued;
  };
  void queued();  // after a command entered the queue: start it or schedule its start
  void start_next();
  // A command starts now (its base cost spent in the returned context) / has finished.
  WorkContext begin_command(CommandKind kind, Message* message, TimePoint enqueued);
  void end_command(const WorkContext& ctx, CommandKind kind);

  Kernel& kernel_;
  NodeId node_;
  const CommandTable* table_;
  MemoryBus* bus_;
  double dma_bandwidth_;
  RingQueue<Queued> queue_;
  // The CP is busy until free_at_. A start event exists only while commands wait, so a command
  // that finds the CP idle costs no event of its own.
  TimePoint free_at_ = kTimeZero;
  bool start_scheduled_ = false;
  ActivityProbe* probe_ = nullptr;
  CommandProcessorStats stats_;
};

}  // namespace ncp2::emu
