#include "tmk/host/program.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmath>
#include <cstring>
#include <deque>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <tuple>
#include <unordered_map>

#include <fmt/format.h>

#include "carnival/run_scopes.hpp"
#include "carnival/scope.hpp"
#include "debug_info/source_lines.hpp"
#include "dsm/process.hpp"
#include "tmk/host/access_log.hpp"
#include "tmk/host/node_process.hpp"
#include "tmk/host/output_relay.hpp"
#include "tmk/host/page_set.hpp"
#include "tmk/host/program_sites.hpp"
#include "tmk/host/shared_heap.hpp"

namespace ncp2::tmk {

using debug_info::SourceLine;

namespace {

std::string mib_text(std::size_t bytes) { return fmt::format("{} MiB", bytes >> 20); }

class ProgramInstance final : public workloads::Instance {
 public:
  ProgramInstance(ProgramSpec spec, int nodes)
      : spec_(std::move(spec)), nodes_(static_cast<std::size_t>(nodes)), sites_(spec_.path) {}
  ~ProgramInstance() override {
    for (auto& n : nodes_)
      if (n.process) n.process->kill();
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
    std::unique_ptr<NodeProcess> process;
    std::unique_ptr<AccessLog> accesses;  // when the run detects races
    std::uint64_t charged_icount = 0;
    std::vector<std::byte> pending_distribute;  // records for the process's bulk area
    std::uint64_t pending_records = 0;
    std::vector<ProtectionRun> pending_protections;
    std::vector<carnival::ScopeSite*> annotations;  // the open TMK_SCOPE_BEGIN scopes
    std::uint32_t next_mark = 0;                    // the request's marks and samples applied so far
    std::uint32_t next_sample = 0;
    bool exited = false;
  };

  void launch(dsm::Runtime& runtime);
  void start_process(Node& node);
  void serve(Node& node, dsm::Process& p);
  bool handle(Node& node, dsm::Process& p);  // false once the node has exited
  void startup(Node& node, dsm::Process& p);
  void charge(Node& node, dsm::Process& p, std::uint64_t icount);
  void charge_until(Node& node, dsm::Process& p, std::uint64_t pc, bool return_address, std::uint64_t icount);
  void merge_accesses(Node& node, dsm::Process& p);
  void apply_events(Node& node, dsm::Process& p, std::uint32_t marks_end, std::uint32_t samples_end);
  void replay_deferred_faults(Node& node, dsm::Process& p);
  void replay(Node& node, dsm::Process& p, const DeferredFault& fault);
  [[nodiscard]] Protection protection_of(dsm::Runtime& runtime, const Node& node, const std::uint8_t* access,
                                         std::uint32_t page) const;
  void apply_mark(Node& node, dsm::Process& p, const ScopeMark& m);
  void attribute(Node& node, dsm::Process& p, std::uint64_t pc, bool return_address);
  void enclosing_scope(Node& node, dsm::Process& p);
  void collect_protections(Node& node, dsm::Runtime& runtime, std::optional<std::uint32_t> faulted);
  void fill_reply(Node& node);
  void malloc_request(Node& node, dsm::Process& p);
  void free_request(Node& node);
  void distribute_request(Node& node);
  [[noreturn]] void abort_run(const Node& node, const std::string& what) const;
  [[nodiscard]] std::string where(const Node& node) const;
  // The sites of an instruction, the line tables loaded from the node's process at the first.
  const ProgramSites::Sites& sites_at(const Node& node, std::uint64_t pc) {
    sites_.load(node.process->channel().load_base);
    return sites_.at(pc);
  }

  ProgramSpec spec_;
  std::vector<Node> nodes_;
  bool launched_ = false;
  std::unique_ptr<SharedHeap> heap_;
  std::size_t heap_bytes_ = 0;
  std::size_t page_bytes_ = 0;
  std::uint32_t region_ = 0;
  bool detect_races_ = false;
  double cycles_per_instruction_ = 1.0;
  ProgramSites sites_;
  std::vector<dsm::PageId> changed_;  // buffers reused by every reply
  std::vector<std::uint32_t> changed_pages_;
  std::vector<std::uint64_t> page_bits_;
  OutputRelay relay_;
};

void ProgramInstance::launch(dsm::Runtime& runtime) {
  launched_ = true;
  const dsm::SystemConfig& config = runtime.config();
  heap_bytes_ = static_cast<std::size_t>(config.tmk.heap_mb) << 20;
  page_bytes_ = static_cast<std::size_t>(config.memory.page_size);
  const auto host_page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  if (page_bytes_ % host_page != 0)
    throw dsm::DsmError(
        fmt::format("memory.page_size = {} B: a program run with real page protection needs a "
                    "multiple of the host's page size, {} B",
                    page_bytes_, host_page));
  cycles_per_instruction_ = config.cost.instruction;
  detect_races_ = runtime.race_detector() != nullptr;
  heap_ = std::make_unique<SharedHeap>(heap_bytes_);
  runtime.set_region_memory([this](dsm::NodeId n, std::size_t bytes) {
    if (bytes > heap_bytes_) throw std::logic_error("shared region larger than the node's shared memory");
    return nodes_[static_cast<std::size_t>(emu::index(n))].process->heap();
  });
  for (std::size_t i = 0; i < nodes_.size(); ++i) {
    nodes_[i].id = static_cast<int>(i);
    runtime.track_access_changes(emu::node_id(static_cast<int>(i)));
  }
  // Diagnoses name the program's lines: the site is the current request's address (a fault's
  // own, a call's return address less one).
  runtime.set_sites(
      [this](dsm::NodeId n) {
        const Channel& c = nodes_[static_cast<std::size_t>(emu::index(n))].process->channel();
        if (c.pc == 0) return std::uint64_t{0};
        return c.request == Request::Fault ? c.pc : c.pc - 1;
      },
      [this](std::uint64_t pc) {
        return sites_.lines() ? sites_.lines()->at(pc).describe(pc) : std::string();
      });
  for (auto& node : nodes_) start_process(node);
  relay_.start();
}

void ProgramInstance::start_process(Node& node) {
  LaunchSpec launch;
  launch.program = spec_.path;
  launch.args = spec_.args;
  launch.node = node.id;
  launch.heap_bytes = heap_bytes_;
  int out = -1;
  int err = -1;
  if (spec_.output_dir.empty()) {
    out = relay_.add(node.id, false);
    err = relay_.add(node.id, true);
  } else {
    const auto base = std::filesystem::path(spec_.output_dir) / fmt::format("node-{}", node.id);
    out = ::open((base.string() + ".stdout").c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    err = ::open((base.string() + ".stderr").c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (out < 0 || err < 0)
      throw dsm::DsmError(fmt::format("cannot write node {}'s output in {}: {}", node.id, spec_.output_dir,
                                      std::strerror(errno)));
  }
  launch.stdout_fd = out;
  launch.stderr_fd = err;
  if (detect_races_) {
    node.accesses = std::make_unique<AccessLog>(heap_bytes_, page_bytes_);
    launch.access_log_fd = node.accesses->fd();
  }
  node.process = std::make_unique<NodeProcess>(launch);
  ::close(out);
  ::close(err);
  if (node.accesses) node.accesses->close_fd();  // the process has it; later nodes must not
}

std::string ProgramInstance::where(const Node& node) const { return sites_.where(node.process->channel()); }

void ProgramInstance::abort_run(const Node& node, const std::string& what) const {
  throw dsm::DsmError(fmt::format("node {}: {}{}", node.id, what, where(node)));
}

void ProgramInstance::run(dsm::Process& p) {
  if (!launched_) launch(p.runtime());
  Node& node = nodes_[static_cast<std::size_t>(p.id())];
  if (node.process->wait_for_request() == WaitResult::Exited)
    abort_run(node, fmt::format("the program {} before Tmk_startup (is it a TreadMarks program built with "
                                "ncp2-cc?)",
                                describe_wait_status(node.process->wait_status())));
  serve(node, p);
}

void ProgramInstance::serve(Node& node, dsm::Process& p) {
  for (;;) {
    try {
      if (!handle(node, p)) return;
    } catch (const dsm::DsmError& e) {
      // The runtime's message (a lock not held, an id out of range), with the program's line.
      const std::string text = e.what();
      if (text.find(" at ") != std::string::npos || !sites_.lines()) throw;
      throw dsm::DsmError(text + where(node));
    }
    fill_reply(node);
    if (node.process->resume() == WaitResult::Exited) {
      merge_accesses(node, p);  // what it did before dying (_exit, SIGKILL) still counts
      abort_run(node, fmt::format("the program {} without Tmk_exit",
                                  describe_wait_status(node.process->wait_status())));
    }
  }
}

void ProgramInstance::charge(Node& node, dsm::Process& p, std::uint64_t icount) {
  if (icount <= node.charged_icount) return;
  const auto cycles = [this](std::uint64_t n) {
    return std::llround(static_cast<double>(n) * cycles_per_instruction_);
  };
  const std::int64_t due = cycles(icount) - cycles(node.charged_icount);
  node.charged_icount = icount;
  if (due > 0) p.compute_cycles(due, dsm::SourcePosition{});  // the program attributes its own lines
}

// The node's accesses since its last request go to the race detector before the request runs: a
// synchronization then closes the segment they belong to, and a run that stops (a failure, a
// deadlock) has every node's accesses in the detector already. The scope is the computation's.
void ProgramInstance::merge_accesses(Node& node, dsm::Process& p) {
  if (!node.accesses || node.accesses->touched() == 0) return;
  dsm::Runtime& runtime = p.runtime();
  node.accesses->merge_into(*runtime.race_detector(), p.node(), runtime.regions().at(region_).first_page,
                            runtime.scope_of(p.node()));
}

void ProgramInstance::enclosing_scope(Node& node, dsm::Process& p) {
  emu::Processor& pp = p.runtime().cluster().pp(p.node());
  pp.set_scope(node.annotations.empty() ? 0 : node.annotations.back()->id);
}

// Scope marks and samples made since the last request, up to the first `marks_end` and
// `samples_end` of them, in the order of their instruction counts: the computation before a sample
// goes to the sampled line, before a mark to the open scope.
void ProgramInstance::apply_events(Node& node, dsm::Process& p, std::uint32_t marks_end,
                                   std::uint32_t samples_end) {
  Channel& c = node.process->channel();
  const auto marks = std::min<std::uint32_t>({c.marks, kMaxScopeMarks, marks_end});
  const auto samples = std::min<std::uint32_t>({c.samples, kMaxSamples, samples_end});
  std::uint32_t& i = node.next_mark;
  std::uint32_t& j = node.next_sample;
  while (i < marks || j < samples) {
    if (j < samples && (i >= marks || c.sample[j].icount <= c.mark[i].icount)) {
      const Sample& s = c.sample[j++];
      attribute(node, p, s.pc, true);
      charge(node, p, s.icount);
    } else {
      apply_mark(node, p, c.mark[i++]);
    }
  }
  enclosing_scope(node, p);
}

// The write faults the node took at once since its last request (tmk/runtime/write_guards.cpp),
// each where a fault request would have come: after the marks and samples made before it. Until
// its fault, the runtime sees a page as its snapshot (the node had not written it yet in this
// interval): what the fault twins, and diffs or copies of it served meanwhile, are those bytes.
void ProgramInstance::replay_deferred_faults(Node& node, dsm::Process& p) {
  const Channel& c = node.process->channel();
  node.next_mark = 0;
  node.next_sample = 0;
  if (c.deferred > c.deferral_slots || c.deferral_slots > kMaxDeferredFaults)
    abort_run(node,
              fmt::format("reports {} write faults taken at once, beyond its {} slots (its channel to the "
                          "emulator was overwritten?)",
                          c.deferred, c.deferral_slots));
  const auto page_of = [&](const DeferredFault& f) {
    const std::uint64_t offset = f.address - kHeapBase;
    if (f.address < kHeapBase || offset >= heap_bytes_)
      abort_run(node, fmt::format("took a write fault at once at {:#x}, outside the shared heap", f.address));
    return static_cast<std::uint32_t>(offset / page_bytes_);
  };
  for (std::uint32_t k = 0; k < c.deferred; ++k)
    p.runtime().show_page_as(p.node(), region_, page_of(c.deferred_fault[k]),
                             node.process->snapshots() + std::size_t{k} * page_bytes_);
  for (std::uint32_t k = 0; k < c.deferred; ++k) {
    const DeferredFault fault = c.deferred_fault[k];
    apply_events(node, p, fault.marks, fault.samples);
    replay(node, p, fault);
    p.runtime().show_page_as(p.node(), region_, page_of(fault), nullptr);
  }
  apply_events(node, p, UINT32_MAX, UINT32_MAX);
}

// The computation up to a request (or a deferred fault) at `pc` (a return address, or a fault's own
// instruction): without annotations it goes to the requesting function.
void ProgramInstance::charge_until(Node& node, dsm::Process& p, std::uint64_t pc, bool return_address,
                                   std::uint64_t icount) {
  if (node.annotations.empty() && pc != 0) {
    const ProgramSites::Sites& sites = sites_at(node, return_address ? pc - 1 : pc);
    if (sites.function != 0) p.runtime().cluster().pp(p.node()).set_scope(sites.function);
  }
  charge(node, p, icount);
}

// One deferred write fault, as handle() runs a fault request.
void ProgramInstance::replay(Node& node, dsm::Process& p, const DeferredFault& fault) {
  dsm::Runtime& runtime = p.runtime();
  const auto page = static_cast<std::uint32_t>((fault.address - kHeapBase) / page_bytes_);
  if (!runtime.write_fault_is_local(p.node(), region_, page))
    abort_run(node, fmt::format("took the write fault of address {:#x} at once, but it was not a local fault "
                                "(an emulator error, please report it)",
                                fault.address));
  charge_until(node, p, fault.pc, false, fault.icount);
  attribute(node, p, fault.pc, false);
  runtime.fault(p.node(), region_, page, dsm::Access::Write);
  enclosing_scope(node, p);
}

// A page's protection for the node's process: its access, and whether a write fault may be taken at once.
Protection ProgramInstance::protection_of(dsm::Runtime& runtime, const Node& node, const std::uint8_t* access,
                                          std::uint32_t page) const {
  const auto protection = static_cast<Protection>(access[page]);
  if (protection == Protection::Read && runtime.write_fault_is_local(emu::node_id(node.id), region_, page))
    return Protection::ReadLocalWrite;
  return protection;
}

void ProgramInstance::apply_mark(Node& node, dsm::Process& p, const ScopeMark& m) {
  const Channel& c = node.process->channel();
  charge(node, p, m.icount);
  const auto text = [&c](std::uint32_t at) {
    return at < kMarksTextBytes
               ? std::string(c.marks_text + at, strnlen(c.marks_text + at, kMarksTextBytes - at))
               : std::string();
  };
  if (m.begin) {
    node.annotations.push_back(&carnival::site_for(
        text(m.name_at), "block", sites_.resolve_file(text(m.file_at)), static_cast<int>(m.line), 0));
  } else if (!node.annotations.empty()) {
    // The C pair gives the block's last line; the C++ form (line 0) ends with its enclosing block.
    carnival::ScopeSite* site = node.annotations.back();
    if (m.line > 0) site->end_line = std::max(site->end_line, static_cast<int>(m.line));
    node.annotations.pop_back();
  }
  enclosing_scope(node, p);
}

// The scope a request's time goes to: the line of the call (or fault) inside its function.
void ProgramInstance::attribute(Node& node, dsm::Process& p, std::uint64_t pc, bool return_address) {
  const ProgramSites::Sites& sites = sites_at(node, return_address && pc != 0 ? pc - 1 : pc);
  if (sites.line != 0) p.runtime().cluster().pp(p.node()).set_scope(sites.line);
}

bool ProgramInstance::handle(Node& node, dsm::Process& p) {
  Channel& c = node.process->channel();
  replay_deferred_faults(node, p);
  charge_until(node, p, c.pc, c.request != Request::Fault, c.icount);
  merge_accesses(node, p);
  c.result = 0;
  switch (c.request) {
    case Request::Startup:
      startup(node, p);
      return true;
    case Request::None:
    case Request::MoreProtections:
      return true;
    case Request::Exit:
      node.exited = true;
      if (c.arg0 != 0 && c.pc == 0)  // exit() without Tmk_exit: the others may wait for it; say why
        fmt::print(stderr, "ncp2: node {} exits with status {}{}\n", node.id, c.arg0, where(node));
      return false;
    case Request::Crash:
      abort_run(node, fmt::format("crashed: {}", std::string(c.text, strnlen(c.text, kTextBytes))));
    case Request::Misuse:
      abort_run(node, std::string(c.text, strnlen(c.text, kTextBytes)));
    default:
      break;
  }
  attribute(node, p, c.pc, c.request != Request::Fault);
  std::optional<std::uint32_t> faulted;
  switch (c.request) {
    case Request::Malloc:
      malloc_request(node, p);
      break;
    case Request::Free:
      free_request(node);
      break;
    case Request::Distribute:
      distribute_request(node);
      break;
    case Request::Barrier:
      if (c.arg0 >= dsm::kMaxBarriers)
        abort_run(node,
                  fmt::format("Tmk_barrier({}): barrier ids go from 0 to {}", c.arg0, dsm::kMaxBarriers - 1));
      p.barrier(static_cast<std::uint32_t>(c.arg0), dsm::SourcePosition{});
      break;
    case Request::LockAcquire:
    case Request::LockRelease: {
      const bool acquire = c.request == Request::LockAcquire;
      if (c.arg0 >= dsm::kMaxLocks)
        abort_run(node, fmt::format("Tmk_lock_{}({}): lock ids go from 0 to {}",
                                    acquire ? "acquire" : "release", c.arg0, dsm::kMaxLocks - 1));
      const auto lock = static_cast<std::uint32_t>(c.arg0);
      acquire ? p.lock_acquire(lock, dsm::SourcePosition{}) : p.lock_release(lock, dsm::SourcePosition{});
      break;
    }
    case Request::Fault: {
      const std::uint64_t offset = c.arg0 - kHeapBase;
      faulted = static_cast<std::uint32_t>(offset / page_bytes_);
      p.runtime().fault(p.node(), region_, *faulted, c.arg1 ? dsm::Access::Write : dsm::Access::Read);
      break;
    }
    default:
      abort_run(node, fmt::format("sent an unknown request ({}): is it built with this version's ncp2-cc?",
                                  static_cast<unsigned>(c.request)));
  }
  enclosing_scope(node, p);
  collect_protections(node, p.runtime(), faulted);
  return true;
}

void ProgramInstance::startup(Node& node, dsm::Process& p) {
  Channel& c = node.process->channel();
  if (detect_races_ && c.race_checks == 0)  // not a DsmError: no source line appended
    throw workloads::WorkloadError(without_race_checks_message(spec_.path));
  region_ = p.runtime().allocate(p.node(), "shared heap", heap_bytes_, 1);
  c.node = static_cast<std::uint32_t>(node.id);
  c.nodes = static_cast<std::uint32_t>(nodes_.size());
  c.heap_base = kHeapBase;
  c.heap_bytes = heap_bytes_;
  c.page_bytes = page_bytes_;
  c.sample_period = static_cast<std::uint64_t>(p.runtime().config().tmk.sample_instructions);
  c.deferral_slots = static_cast<std::uint32_t>(std::min(kMaxDeferredFaults, kSnapshotBytes / page_bytes_));
  // Every page's first protection.
  p.runtime().take_access_changes(p.node(), changed_);
  const std::uint8_t* access = p.runtime().region_access(p.node(), region_);
  const auto pages = static_cast<std::uint32_t>(heap_bytes_ / page_bytes_);
  node.pending_protections.clear();
  for (std::uint32_t page = 0; page < pages;) {
    const Protection protection = protection_of(p.runtime(), node, access, page);
    std::uint32_t end = page + 1;
    while (end < pages && protection_of(p.runtime(), node, access, end) == protection) ++end;
    node.pending_protections.push_back({page, end - page, protection, 0});
    page = end;
  }
}

// The pages whose access changed since the last reply, as runs of equal protection.
void ProgramInstance::collect_protections(Node& node, dsm::Runtime& runtime,
                                          std::optional<std::uint32_t> faulted) {
  runtime.take_access_changes(emu::node_id(node.id), changed_);
  const std::uint32_t first = runtime.regions().at(region_).first_page;
  std::vector<std::uint32_t>& pages = changed_pages_;
  pages.clear();
  for (dsm::PageId page : changed_) pages.push_back(dsm::raw(page) - first);
  // A fault's page always gets its protection again: a fault that changed nothing must not repeat.
  if (faulted) pages.push_back(*faulted);
  sort_unique_pages(pages, heap_bytes_ / page_bytes_, page_bits_);
  const std::uint8_t* access = runtime.region_access(emu::node_id(node.id), region_);
  for (std::size_t i = 0; i < pages.size();) {
    const Protection protection = protection_of(runtime, node, access, pages[i]);
    std::size_t j = i + 1;
    while (j < pages.size() && pages[j] == pages[j - 1] + 1 &&
           protection_of(runtime, node, access, pages[j]) == protection)
      ++j;
    node.pending_protections.push_back({pages[i], static_cast<std::uint32_t>(j - i), protection, 0});
    i = j;
  }
}

// Protections (as many as fit; the process asks for the rest) and distributed data.
void ProgramInstance::fill_reply(Node& node) {
  Channel& c = node.process->channel();
  const std::size_t n = std::min(node.pending_protections.size(), kMaxProtectionRuns);
  std::copy_n(node.pending_protections.begin(), n, c.run);
  node.pending_protections.erase(node.pending_protections.begin(),
                                 node.pending_protections.begin() + static_cast<std::ptrdiff_t>(n));
  c.protection_runs = static_cast<std::uint32_t>(n);
  c.more_protections = node.pending_protections.empty() ? 0 : 1;
  if (node.pending_records > 0 && node.pending_distribute.size() <= kBulkBytes) {
    std::memcpy(node.process->bulk(), node.pending_distribute.data(), node.pending_distribute.size());
    c.distributed = node.pending_records;
    node.pending_distribute.clear();
    node.pending_records = 0;
  }
}

void ProgramInstance::malloc_request(Node& node, dsm::Process& /*p*/) {
  Channel& c = node.process->channel();
  const std::optional<std::size_t> offset = heap_->allocate(c.arg0);
  if (!offset)
    abort_run(node,
              fmt::format("Tmk_malloc({} bytes): the shared heap of {} is exhausted ({} bytes in use, the "
                          "largest free block {} bytes); raise it with --set tmk.heap_mb=N",
                          c.arg0, mib_text(heap_bytes_), heap_->in_use(), heap_->largest_free()));
  c.result = static_cast<std::int64_t>(kHeapBase + *offset);
}

void ProgramInstance::free_request(Node& node) {
  const Channel& c = node.process->channel();
  if (c.arg0 < kHeapBase || c.arg0 >= kHeapBase + heap_bytes_ || !heap_->free(c.arg0 - kHeapBase))
    abort_run(node,
              fmt::format("Tmk_free({:#x}): not an address Tmk_malloc returned (or freed twice)", c.arg0));
}

// Node 0's data goes to every other node's process, applied when it next runs.
void ProgramInstance::distribute_request(Node& node) {
  const Channel& c = node.process->channel();
  const std::size_t record = 16 + (c.arg1 + 7) / 8 * 8;
  const unsigned char* bulk = node.process->bulk();
  for (auto& other : nodes_) {
    if (other.id == node.id) continue;
    if (other.pending_distribute.size() + record > kBulkBytes)
      abort_run(node, "Tmk_distribute: more than 64 MiB distributed before the other nodes ran again");
    const auto* from = reinterpret_cast<const std::byte*>(bulk);
    other.pending_distribute.insert(other.pending_distribute.end(), from, from + 16 + c.arg1);
    other.pending_distribute.resize(other.pending_distribute.size() + (record - 16 - c.arg1));
    ++other.pending_records;
  }
}

void ProgramInstance::verify(dsm::Process& p) {
  if (p.id() != 0) return;
  std::vector<std::string> failed;
  for (auto& node : nodes_) {
    if (!node.process) continue;
    const int status = node.process->reap();
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
      failed.push_back(fmt::format("node {} {}", node.id, describe_wait_status(status)));
  }
  relay_.finish();
  if (failed.empty()) {
    pass(fmt::format("every node exited with status 0 (the program checks its own results)"));
  } else {
    std::string text;
    for (const auto& f : failed) text += (text.empty() ? "" : "; ") + f;
    fail(text);
  }
}

// A race's side: the line of the access whose return address the program recorded.
workloads::Instance::SourcePlace ProgramInstance::describe_access(const dsm::AccessSite& site) const {
  if (!sites_.lines() || site.where == 0) return {};
  const SourceLine at = sites_.lines()->before_return(site.where);
  if (!at.known()) return {};
  return {carnival::relative_source_path(at.file), at.line};
}

std::optional<std::uint64_t> ProgramInstance::program_address(const dsm::Runtime& /*runtime*/,
                                                              std::uint32_t region,
                                                              std::uint64_t offset) const {
  if (!launched_ || region != region_ || offset >= heap_bytes_) return std::nullopt;
  return kHeapBase + offset;
}

}  // namespace

bool looks_like_program(const std::string& name) {
  return name.find('/') != std::string::npos || std::filesystem::is_regular_file(name);
}

workloads::Workload program_workload(const ProgramSpec& spec) {
  if (!std::filesystem::exists(spec.path))
    throw workloads::WorkloadError(fmt::format("no program {} (build it with ncp2-cc)", spec.path));
  if (!std::filesystem::is_regular_file(spec.path) || ::access(spec.path.c_str(), X_OK) != 0)
    throw workloads::WorkloadError(fmt::format("{} is not an executable program", spec.path));
  if (spec.detect_races && !built_with_race_checks(spec.path))
    throw workloads::WorkloadError(without_race_checks_message(spec.path));
  if (!spec.output_dir.empty() && !std::filesystem::is_directory(spec.output_dir))
    throw workloads::WorkloadError(
        std::filesystem::exists(spec.output_dir)
            ? fmt::format("--node-output {}: is not a directory (give a directory)", spec.output_dir)
            : fmt::format("--node-output {}: no such directory (create it first)", spec.output_dir));
  workloads::Workload w;
  w.name = spec.path;
  w.description = "a TreadMarks-API program built with ncp2-cc";
  std::string args;
  for (const auto& a : spec.args) args += (args.empty() ? "" : " ") + a;
  w.parameters.push_back(workloads::text_param("args", args, "the program's arguments (after --)"));
  w.make = [spec](const workloads::Params& /*params*/, int nodes, std::uint64_t /*seed*/) {
    return std::make_unique<ProgramInstance>(spec, nodes);
  };
  w.validate = [](const workloads::Params&, int) {};
  return w;
}

}  // namespace ncp2::tmk
