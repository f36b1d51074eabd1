#include "emulator/command_processor.hpp"

#include <algorithm>

namespace ncp2::emu {

CommandProcessor::CommandProcessor(Kernel& kernel, NodeId node, const CommandTable& table,
                                   MemoryBus& bus, double dma_bandwidth)
    : kernel_(kernel), node_(node), table_(&table), bus_(&bus), dma_bandwidth_(dma_bandwidth) {}

void CommandProcessor::submit(const Command& command) {
  if (command.message) command.message->chain.add(kernel_.now(), StampPoint::CpQueued, Resource::CP, node_);
  queue_.push_back({command, kernel_.now()});
  stats_.max_queue = std::max(stats_.max_queue, queue_.size());
  if (!busy_) start_next();
}

void CommandProcessor::start_next() {
  if (queue_.empty()) {
    busy_ = false;
    return;
  }
  busy_ = true;
  const Queued item = queue_.front();
  queue_.pop_front();
  const TimePoint now = kernel_.now();
  stats_.queue_wait += now - item.enqueued;
  ++stats_.commands;
  Message* m = item.command.message;
  if (m) m->chain.add(now, StampPoint::CpStarted, Resource::CP, node_);
  WorkContext ctx(now, node_, Resource::CP, *bus_, dma_bandwidth_);
  ctx.spend(table_->cost(item.command.kind));
  if (item.command.body) item.command.body(ctx, m);
  stats_.busy += ctx.elapsed();
  kernel_.trace(0xC0, static_cast<std::uint64_t>(index(node_)), static_cast<std::uint64_t>(item.command.kind));
  kernel_.at(ctx.now(), [this] { start_next(); });
}

}  // namespace ncp2::emu
