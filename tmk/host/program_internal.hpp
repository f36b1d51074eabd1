#pragma once
// INTERNAL to tmk/host: a program built with ncp2-cc as a workload of the emulator (program.cpp:
// the processes, the request loop and the requests; program_events.cpp: the computation between
// requests, scope marks, samples, deferred write faults). Each node's requests are served by the
// channel server shared with real runs (channel_server.hpp), its RequestHandler here.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "carnival/scope_sites.hpp"
#include "dsm/process.hpp"
#include "tmk/host/access_log.hpp"
#include "tmk/host/channel_server.hpp"
#include "tmk/host/node_fiber.hpp"
#include "tmk/host/node_process.hpp"
#include "tmk/host/output_relay.hpp"
#include "tmk/host/program.hpp"
#include "tmk/host/program_sites.hpp"
#include "tmk/host/shared_heap.hpp"

namespace ncp2::tmk {

class ProgramInstance final : public workloads::Instance {
 public:
  ProgramInstance(ProgramSpec spec, int nodes)
      : spec_(std::move(spec)), nodes_(static_cast<std::size_t>(nodes)), sites_(spec_.path) {}
  ~ProgramInstance() override {
    for (auto& n : nodes_)
      if (n.process) n.process->kill();
    for (auto& n : nodes_) n.process.reset();  // a fiber's output closes with it: before the relay waits
    relay_.finish();
  }
  ProgramInstance(const ProgramInstance&) = delete;
  ProgramInstance& operator=(const ProgramInstance&) = delete;

  void run(dsm::Process& p) override;
  void verify(dsm::Process& p) override;
  [[nodiscard]] SourcePlace describe_access(const dsm::AccessSite& site) const override;
  [[nodiscard]] std::optional<std::uint64_t> program_address(const dsm::Runtime& runtime,
                                                             std::uint32_t region,
                                                             std::uint64_t offset) const override;

 private:
  struct Node {
    int id = 0;
    std::unique_ptr<NodeProgram> process;
    std::unique_ptr<AccessLog> accesses;  // when the run detects races
    std::unique_ptr<ChannelServer> server;
    std::uint64_t charged_icount = 0;
    std::vector<carnival::ScopeSite*> annotations;  // the open TMK_SCOPE_BEGIN scopes
    std::uint32_t next_mark = 0;                    // the request's marks and samples applied so far
    std::uint32_t next_sample = 0;
    bool exited = false;
    // The measured time model: the stretch up to the current request, as the process timed it,
    // spread over the instructions from `from` to `to` (its samples' and marks' shares).
    struct {
      std::int64_t ps = 0;
      std::int64_t charged = 0;
      std::uint64_t from = 0;
      std::uint64_t to = 0;
    } stretch;
  };
  class Requests;  // a node's requests on the emulated machine (program.cpp)

  void launch(dsm::Runtime& runtime);
  void start_process(Node& node);
  void serve(Node& node, dsm::Process& p);
  void startup(Node& node, dsm::Process& p);
  void charge(Node& node, dsm::Process& p, std::uint64_t icount);
  void begin_measured_stretch(Node& node, const Channel& c);
  void charge_measured(Node& node, dsm::Process& p, std::uint64_t icount);
  void charge_until(Node& node, dsm::Process& p, std::uint64_t pc, bool return_address, std::uint64_t icount);
  void merge_accesses(Node& node, dsm::Process& p);
  void apply_events(Node& node, dsm::Process& p, std::uint32_t marks_end, std::uint32_t samples_end);
  void replay_deferred_faults(Node& node, dsm::Process& p, RequestHandler& h);
  void replay(Node& node, dsm::Process& p, const DeferredFault& fault, std::uint32_t page, RequestHandler& h);
  [[nodiscard]] Protection protection_of(dsm::Runtime& runtime, const Node& node, const std::uint8_t* access,
                                         std::uint32_t page) const;
  void apply_mark(Node& node, dsm::Process& p, const ScopeMark& m);
  void attribute(Node& node, dsm::Process& p, std::uint64_t pc, bool return_address);
  void enclosing_scope(Node& node, dsm::Process& p);
  void collect_protections(Node& node, dsm::Runtime& runtime, std::optional<std::uint32_t> faulted);
  [[noreturn]] void abort_run(const Node& node, const std::string& what) const;
  [[nodiscard]] std::string where(const Node& node) const;
  // The sites of an instruction, the line tables loaded from the node's process at the first.
  const ProgramSites::Sites& sites_at(const Node& node, std::uint64_t pc) {
    sites_.load(node.process->channel().load_base);
    return sites_.at(pc);
  }

  ProgramSpec spec_;
  std::unique_ptr<FiberProgram> fiber_program_;  // the fiber runner's object (declared before the nodes)
  std::vector<Node> nodes_;
  bool launched_ = false;
  std::unique_ptr<SharedHeap> heap_;
  std::size_t heap_bytes_ = 0;
  std::size_t page_bytes_ = 0;
  std::uint32_t region_ = 0;
  bool detect_races_ = false;
  double cycles_per_instruction_ = 1.0;
  dsm::ComputeMeter* meter_ = nullptr;  // the measured time model, when the run uses it
  ProgramSites sites_;
  std::vector<dsm::PageId> changed_;  // buffers reused by every reply
  std::vector<std::uint32_t> changed_pages_;
  OutputRelay relay_;
};

}  // namespace ncp2::tmk
