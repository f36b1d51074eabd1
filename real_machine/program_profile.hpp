#pragma once
// Where a node's time went in a real run, as its agent's local thread sees the program. Its native
// execution between two requests is Comp, spread over the scopes its scope marks and samples name
// in proportion to the instructions counted between them (ncp2-cc's pass; without it, all to the
// last scope). A request's time, from the moment the program posted it to the moment it resumed,
// is Wait when it waited for another node (a wait row per exchange, from its request's sending, cut
// into the parts that can be observed, as the emulator records one per wait), else Extra — the
// hand-off to the agent and its work before the first exchange included, as an emulated node's
// protocol entry. The same scope sites as an emulated run of the program (tmk/host/program.cpp),
// so the two compare scope by scope. Written into the node's record; the local thread's only (but
// current_scope()).
#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

#include "carnival/scope_sites.hpp"
#include "lrc/types.hpp"
#include "real_machine/node_record.hpp"
#include "tmk/channel.hpp"
#include "tmk/host/program_sites.hpp"

namespace ncp2::real {

class ProgramProfile {
 public:
  // One exchange of a request with other nodes: what the agent could observe of it, in the node's
  // clock (the exchange's sender fills it in).
  struct Exchange {
    lrc::Operation operation = lrc::Operation::None;
    std::uint64_t object = 0;
    double start_ns = 0;    // the request sent
    double end_ns = 0;      // its reply (the last of them) taken in
    double service_ns = 0;  // the replier's own time (the slowest's, of several)
    double sync_ns = 0;     // waiting for another processor (a lock's holder, the barrier's last)
    int remote_node = -1;
    int cause_node = -1;
  };

  // `enabled` false: no profile, no waits (to measure what profiling costs).
  ProgramProfile(NodeRecord& record, tmk::ProgramSites& sites, bool enabled);

  // The agent took the program's request `c` at `picked_ns`, posted at `posted_ns` after running
  // its own code since `resumed_ns`, when the previous request ended.
  void request_taken(const tmk::Channel& c, double resumed_ns, double posted_ns, double picked_ns);
  void scope_at_call(const tmk::Channel& c);  // the request's scope: the line of its call
  void scope_at_exit(const tmk::Channel& c);  // Tmk_exit's: the calling function, as the emulator has it
  void joining();                             // the request is Tmk_startup's: not the program's time
  void entered(lrc::Operation op);            // the first the request enters names its own time
  void forget_operation();                    // what it entered so far was not its own (deferred faults)
  Exchange& exchange(lrc::Operation op, std::uint64_t object);  // a completed exchange, its times to fill
  void replied(double ns);                                      // the reply sent to the program
  void close(double resumed_ns);                                // the program resumed: the request's time
  // The scope the program's latest computation ended in (any thread: where the node is).
  [[nodiscard]] std::uint32_t current_scope() const { return current_scope_.load(std::memory_order_relaxed); }

 private:
  // The request being served: its time is known once the program resumes.
  struct Pending {
    std::uint32_t scope = 0;
    bool startup = false;                             // joining the run: not the program's time
    lrc::Operation operation = lrc::Operation::None;  // the first it entered: its time outside waits
    double posted_ns = 0;
    double replied_ns = 0;
    std::vector<Exchange> exchanges;  // its waits for other nodes, in order
  };
  void close_with_waits(const Pending& p, double resumed_ns);
  void computed(const tmk::Channel& c, double resumed_ns, double posted_ns);
  void apply_mark(const tmk::Channel& c, const tmk::ScopeMark& m);
  // The scope site of an instruction: its line, or its function (0: unknown).
  std::uint32_t site_of(const tmk::Channel& c, std::uint64_t pc, bool return_address, bool function);
  [[nodiscard]] std::uint32_t innermost_block() const {
    return annotations_.empty() ? 0 : annotations_.back()->id;
  }

  NodeRecord& record_;
  tmk::ProgramSites& sites_;
  bool enabled_;
  std::vector<carnival::ScopeSite*> annotations_;  // open TMK_SCOPE blocks
  std::uint64_t last_icount_ = 0;
  std::unique_ptr<Pending> pending_;
  std::atomic<std::uint32_t> current_scope_{0};
};

}  // namespace ncp2::real
