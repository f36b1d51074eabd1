#include "emulator/command_processor.hpp"

#include <algorithm>

namespace ncp2::emu {

CommandProcessor::CommandProcessor(Kernel& kernel, NodeId node, const CommandTable& table, MemoryBus& bus,
                                   double dma_bandwidth)
    : kernel_(kernel), node_(node), table_(&table), bus_(&bus), dma_bandwidth_(dma_bandwidth) {}

void CommandProcessor::queued() {
  const TimePoint now = kernel_.now();
  stats_.max_queue = std::max(stats_.max_queue, queue_.size());
  if (start_scheduled_) return;
  if (now >= free_at_) {
    start_next();
  } else {
    start_scheduled_ = true;
    kernel_.at(free_at_, [this] {
      start_scheduled_ = false;
      start_next();
    });
  }
}

void CommandProcessor::start_next() {
  const Queued item = queue_.front();  // copied: the body may submit more commands
  queue_.pop_front();
  WorkContext ctx = begin_command(item.command.kind, item.command.message, item.enqueued);
  if (item.command.body) item.command.body(ctx, item.command.message);
  end_command(ctx, item.command.kind);
}

WorkContext CommandProcessor::begin_command(CommandKind kind, Message* message, TimePoint enqueued) {
  const TimePoint now = kernel_.now();
  stats_.queue_wait += now - enqueued;
  ++stats_.commands;
  if (message) message->chain.add(now, StampPoint::CpStarted, Resource::CP, node_);
  WorkContext ctx(now, node_, Resource::CP, *bus_, dma_bandwidth_);
  ctx.spend(table_->cost(kind));
  return ctx;
}

void CommandProcessor::end_command(const WorkContext& ctx, CommandKind kind) {
  stats_.busy += ctx.elapsed();
  free_at_ = ctx.now();
  if (probe_) probe_->cp_span(node_, ctx.start(), free_at_);
  kernel_.trace(0xC0, static_cast<std::uint64_t>(index(node_)), static_cast<std::uint64_t>(kind));
  if (!queue_.empty()) {
    start_scheduled_ = true;
    kernel_.at(free_at_, [this] {
      start_scheduled_ = false;
      start_next();
    });
  }
}

}  // namespace ncp2::emu
