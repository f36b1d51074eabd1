// A program built with ncp2-cc as a workload of the emulator (tmk/host/program.hpp): its node
// processes, the request loop, and what each request does on the emulated machine. The requests
// are read, checked and answered by the channel server real runs use too (channel_server.hpp).
#include "tmk/host/program.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>

#include <fmt/format.h>

#include "carnival/run_scopes.hpp"
#include "debug_info/source_lines.hpp"
#include "emulator/fiber_sanitizer.hpp"
#include "tmk/host/fiber_object.hpp"
#include "tmk/host/program_internal.hpp"

namespace ncp2::tmk {

using debug_info::SourceLine;

// A node's requests, run in its PP's fiber on the emulated machine.
class ProgramInstance::Requests final : public RequestHandler {
 public:
  Requests(ProgramInstance& program, Node& node, dsm::Process& p) : program_(program), node_(node), p_(p) {}

  void begin_request(const Channel& c) override {
    program_.attribute(node_, p_, c.pc, c.request != Request::Fault);
  }
  void startup() override { program_.startup(node_, p_); }
  std::pair<std::uint64_t, std::string> malloc(std::uint64_t bytes) override {
    const std::optional<std::size_t> offset = program_.heap_->allocate(bytes);
    if (!offset) return {0, heap_exhausted(*program_.heap_)};
    return {kHeapBase + *offset, {}};
  }
  bool free(std::uint64_t address) override {
    return address >= kHeapBase && address < kHeapBase + program_.heap_bytes_ &&
           program_.heap_->free(address - kHeapBase);
  }
  // Node 0's data goes to every other node's process, applied when it next runs.
  void distribute(std::vector<std::byte> record) override {
    for (auto& other : program_.nodes_) {
      if (other.id == node_.id) continue;
      if (other.server->distributed_bytes() + record.size() > kBulkBytes)
        abort(
            fmt::format("node {}: Tmk_distribute: more than 64 MiB distributed before the other nodes ran "
                        "again{}",
                        node_.id, where()));
      other.server->distributed(record, 1);
    }
  }
  void barrier(std::uint32_t id) override { p_.barrier(id, dsm::SourcePosition{}); }
  void lock_acquire(std::uint32_t lock) override { p_.lock_acquire(lock, dsm::SourcePosition{}); }
  void lock_release(std::uint32_t lock) override { p_.lock_release(lock, dsm::SourcePosition{}); }
  void fault(std::uint32_t page, bool write) override {
    faulted = page;
    p_.runtime().fault(p_.node(), program_.region_, page, write ? dsm::Access::Write : dsm::Access::Read);
  }
  void exit(std::uint64_t /*status*/) override { node_.exited = true; }
  [[nodiscard]] std::string where() const override { return program_.where(node_); }
  [[noreturn]] void abort(const std::string& text) override { throw dsm::DsmError(text); }

  std::optional<std::uint32_t> faulted;  // the fault's page: its protection is sent again

 private:
  ProgramInstance& program_;
  Node& node_;
  dsm::Process& p_;
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
  meter_ = runtime.compute_meter();
  for (std::size_t i = 0; meter_ && i < nodes_.size(); ++i)
    if (const std::string why = meter_->set_external(emu::node_id(static_cast<int>(i))); !why.empty())
      throw workloads::WorkloadError("the measured time model cannot time this program: " + why);
  detect_races_ = runtime.race_detector() != nullptr;
  if (spec_.runner == Runner::Fiber) {
    check_fiber_mappings(nodes_.size());
    fiber_program_ = std::make_unique<FiberProgram>(spec_.path, heap_bytes_);
    sites_.read_lines_from(fiber_program_->object_path());
  }
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
  for (auto& node : nodes_) {
    node.server = std::make_unique<ChannelServer>(
        ChannelSizes{node.id, static_cast<int>(nodes_.size()), heap_bytes_, page_bytes_,
                     static_cast<std::uint64_t>(config.tmk.sample_instructions)});
    start_process(node);
    node.process->set_wait_timeout([&runtime] { runtime.check_limits(); });
  }
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
  if (fiber_program_) {  // the node's streams take the descriptors over; the log is shared memory
    std::byte* log = node.accesses ? node.accesses->data() : nullptr;
    if (node.accesses) node.accesses->close_fd();
    node.process =
        std::make_unique<NodeFiber>(FiberLaunch{fiber_program_.get(), spec_.args, node.id, out, err, log});
    return;
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

// Before each request: the write faults taken at once since the last one, the computation up to
// the request, the accesses for the race detector; then the request; then the reply.
void ProgramInstance::serve(Node& node, dsm::Process& p) {
  Requests requests(*this, node, p);
  for (;;) {
    Channel& c = node.process->channel();
    try {
      begin_measured_stretch(node, c);
      replay_deferred_faults(node, p, requests);
      charge_until(node, p, c.pc, c.request != Request::Fault, c.icount);
      merge_accesses(node, p);
      requests.faulted.reset();
      if (!node.server->serve(c, node.process->bulk(), requests)) return;
    } catch (const dsm::DsmError& e) {
      // The runtime's message (a lock not held, an id out of range), with the program's line.
      const std::string text = e.what();
      if (text.find(" at ") != std::string::npos || !sites_.lines()) throw;
      throw dsm::DsmError(text + where(node));
    }
    enclosing_scope(node, p);
    if (c.request != Request::Startup) collect_protections(node, p.runtime(), requests.faulted);
    node.server->fill_reply(c, node.process->bulk());
    if (node.process->resume() == WaitResult::Exited) {
      merge_accesses(node, p);  // what it did before dying (_exit, SIGKILL) still counts
      abort_run(node, fmt::format("the program {} without Tmk_exit",
                                  describe_wait_status(node.process->wait_status())));
    }
  }
}

void ProgramInstance::startup(Node& node, dsm::Process& p) {
  const Channel& c = node.process->channel();
  if (detect_races_ && c.race_checks == 0)  // not a DsmError: no source line appended
    throw workloads::WorkloadError(without_race_checks_message(spec_.path));
  region_ = p.runtime().allocate(p.node(), "shared heap", heap_bytes_, 1);
  p.runtime().take_access_changes(p.node(), changed_);
  const std::uint8_t* access = p.runtime().region_access(p.node(), region_);
  node.server->all_protections(
      [&](std::uint32_t page) { return protection_of(p.runtime(), node, access, page); });
}

// The pages whose access changed since the last reply.
void ProgramInstance::collect_protections(Node& node, dsm::Runtime& runtime,
                                          std::optional<std::uint32_t> faulted) {
  runtime.take_access_changes(emu::node_id(node.id), changed_);
  const std::uint32_t first = runtime.regions().at(region_).first_page;
  std::vector<std::uint32_t>& pages = changed_pages_;
  pages.clear();
  for (dsm::PageId page : changed_) pages.push_back(dsm::raw(page) - first);
  // A fault's page always gets its protection again: a fault that changed nothing must not repeat.
  if (faulted) pages.push_back(*faulted);
  const std::uint8_t* access = runtime.region_access(emu::node_id(node.id), region_);
  node.server->protections_changed(
      pages, [&](std::uint32_t page) { return protection_of(runtime, node, access, page); });
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

bool looks_like_program(const std::string& name) {
  return name.find('/') != std::string::npos || std::filesystem::is_regular_file(name);
}

// A build with AddressSanitizer or ThreadSanitizer: the program fibers' stack switches are not
// annotated for them (emulator/fiber_sanitizer.hpp annotates the kernel's own), so the default runs
// programs as processes there; --runner fiber still may be asked for.
#if defined(NCP2_ASAN) || defined(NCP2_TSAN)
constexpr bool kSanitized = true;
#else
constexpr bool kSanitized = false;
#endif

workloads::Workload program_workload(const ProgramSpec& given) {
  ProgramSpec spec = given;
  if (!std::filesystem::exists(spec.path))
    throw workloads::WorkloadError(fmt::format("no program {} (build it with ncp2-cc)", spec.path));
  if (!std::filesystem::is_regular_file(spec.path) || ::access(spec.path.c_str(), X_OK) != 0)
    throw workloads::WorkloadError(fmt::format("{} is not an executable program", spec.path));
  if (spec.detect_races && !built_with_race_checks(spec.path))
    throw workloads::WorkloadError(without_race_checks_message(spec.path));
  if (spec.runner != Runner::Process) {
    const FiberObject object = read_fiber_object(spec.path);
    if (spec.runner == Runner::Auto)
      spec.runner = object.found() && !kSanitized ? Runner::Fiber : Runner::Process;
    if (spec.runner == Runner::Fiber && !object.found()) throw workloads::WorkloadError(object.error);
  }
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
