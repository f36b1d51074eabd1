#pragma once
// The emulated machine: N nodes (PP + memory bus + CP on `ncp2`, PP + memory bus on
// `treadmarks`) on one network. The cluster owns the two machines' difference for the layer
// above: sending a message goes through the CP's queue on ncp2 and through the PP's software path
// on treadmarks; a received message is handled by a CP command on ncp2 and by a PP interrupt
// handler on treadmarks; notify_pp() crosses from CP to PP by interrupt on ncp2 and is a plain
// call on treadmarks, where the handler is already running on the PP.
#include <cstdint>
#include <functional>
#include <memory>
#include <type_traits>
#include <utility>
#include <vector>

#include "emulator/command_processor.hpp"
#include "emulator/config.hpp"
#include "emulator/kernel.hpp"
#include "emulator/memory_bus.hpp"
#include "emulator/message.hpp"
#include "emulator/network.hpp"
#include "emulator/processor.hpp"

namespace ncp2::emu {

struct Node {
  Node(Kernel& kernel, NodeId id, const MachineConfig& config, const CommandTable& commands);
  NodeId id;
  MemoryBus bus;
  Processor pp;
  std::unique_ptr<CommandProcessor> cp;  // null on the treadmarks machine
};

class Cluster {
 public:
  // Called when a message has been received into the destination node's memory: inside a CP
  // command (ncp2) or a PP interrupt handler (treadmarks). It owns the message: release() it or
  // reuse it for a reply.
  using Receiver = std::function<void(WorkContext&, Message*)>;
  // Work for a PP, small enough to be wrapped in an interrupt handler.
  using PpHandler = InlineFunction<void(WorkContext&), 32>;

  Cluster(Kernel& kernel, const MachineConfig& config);
  Cluster(const Cluster&) = delete;
  Cluster& operator=(const Cluster&) = delete;

  [[nodiscard]] int size() const { return static_cast<int>(nodes_.size()); }
  [[nodiscard]] Node& node(NodeId id) { return *nodes_.at(static_cast<std::size_t>(index(id))); }
  [[nodiscard]] Processor& pp(NodeId id) { return node(id).pp; }
  [[nodiscard]] Kernel& kernel() { return kernel_; }
  [[nodiscard]] Network& network() { return network_; }
  [[nodiscard]] const MachineConfig& config() const { return config_; }
  [[nodiscard]] bool has_cp() const { return config_.has_cp(); }
  [[nodiscard]] CommandTable& commands() { return commands_; }
  [[nodiscard]] MessagePool& messages() { return pool_; }

  void set_receiver(Receiver receiver) { receiver_ = std::move(receiver); }
  // ncp2: the CP command a message of `purpose` becomes when it arrives (RECEIVE_MESSAGE unless
  // set: a REMOTE_PAGE_REQUEST arrives as that command, as in the paper's flows).
  void set_receive_command(std::uint16_t purpose, CommandKind kind);
  // The kind of the configured command `name` (cp.command_cost.<name>); throws when unknown.
  [[nodiscard]] CommandKind command(std::string_view name) const;

  [[nodiscard]] Message* new_message(NodeId source, NodeId destination, std::uint16_t purpose,
                                     std::uint32_t payload_bytes);
  void release(Message* m) { pool_.release(m); }

  // From the source node's PP fiber. ncp2: the PP posts SEND_MESSAGE to its CP (busy for
  // pp.command_post) and goes on; the CP executes it (cost + DMA of the payload) and injects.
  // treadmarks: the PP runs the software send path (pp.send_overhead + copy of the payload).
  void send_from_pp(Message* m);
  // From work running on the source node (a CP command or a PP handler), at ctx.now().
  void send_from(WorkContext& ctx, Message* m);
  // Runs `handler` on the PP of ctx's node. ncp2 (ctx on the CP): an interrupt raised at
  // ctx.now(); the handler first spends pp.notification_handler. treadmarks (ctx on the PP): the
  // handler runs inline in ctx.
  // `handler`: a PpHandler or any small trivially copyable callable (built in place in the PP's
  // interrupt queue, not copied through temporaries).
  template <class F>
  void notify_pp(WorkContext& ctx, F&& handler, HandlerTag tag = {}) {
    if (ctx.resource() == Resource::PP) {
      handler(ctx);
      return;
    }
    const Duration cost = config_.pp.notification_handler;
    node(ctx.node())
        .pp.interrupt_at(
            ctx.now(),
            [handler = std::decay_t<F>(std::forward<F>(handler)), cost](WorkContext& c) {
              c.spend(cost);
              handler(c);
            },
            tag);
  }
  // treadmarks: the nature of the interrupt handler that receives a message of `purpose`.
  void set_purpose_tag(std::uint16_t purpose, HandlerTag tag);
  // Reports every PP's and CP's activity to `probe` (nullptr: off).
  void attach_probe(ActivityProbe* probe);

  // Sends a command to a node's CP at time `when` (>= now). ncp2 only.
  void submit_at(NodeId node, TimePoint when, const Command& command);

  [[nodiscard]] CommandKind send_command() const { return send_kind_; }
  [[nodiscard]] CommandKind receive_command() const { return receive_kind_; }

 private:
  void deliver(Message* m);
  [[nodiscard]] Duration busy_handler_delay(const Processor& pp);
  [[nodiscard]] Duration until_next_tick(NodeId node, Duration tick) const;  // pp.busy_handler_tick
  static constexpr std::uint64_t kTickSalt = 0x7469636bULL;  // the phases apart from the prompt draws
  void cp_send(WorkContext& ctx, Message* m);
  // The software per-byte path of a message's payload on a machine without CPs (send or receive).
  [[nodiscard]] Duration message_software(const Message& m) const {
    return config_.pp.message_per_byte * static_cast<std::int64_t>(m.payload_bytes);
  }

  Kernel& kernel_;
  MachineConfig config_;
  CommandTable commands_;
  CommandKind send_kind_{};
  CommandKind receive_kind_{};
  Network network_;
  MessagePool pool_;
  std::vector<std::unique_ptr<Node>> nodes_;
  Receiver receiver_;
  std::vector<CommandKind> receive_kind_by_purpose_;
  std::vector<HandlerTag> tag_by_purpose_;
  // Per node: how many scheduler draws it made (pp.busy_handler_prompt_share), the index of its
  // next draw in a fixed sequence, so that a run's waits are the same every time.
  std::vector<std::uint64_t> scheduler_draws_;
};

}  // namespace ncp2::emu
