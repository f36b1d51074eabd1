#pragma once
// What the emulator checks of a workload's program itself, apart from the protocol it runs (issue
// 16): data races (RaceDetector: the accesses the typed API records, merged at synchronizations)
// and stale spans (SpanChecker: a span used after its node's next synchronization), each checked
// at the node's DSM entries and synchronizations and reported in the program's words. The
// emulated transport (dsm::Runtime) owns one and calls it; it knows nothing of messages.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "dsm/race_detector.hpp"
#include "dsm/region_info.hpp"
#include "dsm/types.hpp"

namespace ncp2::dsm {

class SpanChecker;

class ProgramChecks {
 public:
  // How a stale span's report names places: `line_of` a code address ("workloads/sor.cpp:123";
  // "" when unknown), `path_of` a source file as the compiler named it (std::source_location).
  // Unset: the address, and the path as compiled.
  struct CodePlaces {
    std::function<std::string(std::uint64_t address)> line_of;
    std::function<std::string(const char* file)> path_of;
  };

  // `regions` are the run's shared arrays (named in reports), kept by the caller.
  ProgramChecks(int nodes, std::size_t page_size, const std::vector<RegionInfo>& regions);
  ~ProgramChecks();
  ProgramChecks(const ProgramChecks&) = delete;
  ProgramChecks& operator=(const ProgramChecks&) = delete;

  void enable_races();
  [[nodiscard]] RaceDetector* races() { return races_.get(); }
  // Before the first shared array is allocated (`allocated`: whether one was).
  void enable_spans(bool allocated);
  [[nodiscard]] bool checking_spans() const { return spans_ != nullptr; }
  void set_code_places(CodePlaces places) { places_ = std::move(places); }

  // At each DSM entry of node n: a stale use the node made since is a DsmError now.
  void at_entry(NodeId n) {
    if (spans_) [[unlikely]]
      check_stale(n);
  }
  // Node n starts a synchronization (`after` false) or has completed it: races are merged and
  // spans closed as the program's order requires.
  void synchronizing(NodeId n, Operation op, std::uint32_t id, bool after);
  // Node n touched `bytes` bytes at byte `offset` of a region whose pages start at `first_page`
  // (split by page); not after its Tmk_exit (the verification is not the program).
  void record_access(NodeId n, PageId first_page, std::size_t offset, std::size_t bytes, bool write,
                     const AccessSite& site);

  // Checking spans, region `region` of `bytes` bytes per node is mapped for views; node n's copy
  // then lives at checked_copy.
  void add_checked_region(std::uint32_t region, std::size_t bytes);
  [[nodiscard]] std::byte* checked_copy(std::uint32_t region, NodeId n);
  // A span of node n: where the region starts for its spans until its next synchronization; null
  // when the region is not checked (its memory comes from elsewhere).
  std::byte* take_span(NodeId n, std::uint32_t region, std::size_t offset, std::size_t bytes,
                       const char* file, int line);

 private:
  void check_stale(NodeId n);
  [[noreturn]] void report_stale(NodeId n);
  [[nodiscard]] std::string code_place(std::uint64_t pc, std::uint64_t stack_top) const;

  int nodes_;
  std::size_t page_size_;
  const std::vector<RegionInfo>& regions_;
  std::unique_ptr<RaceDetector> races_;
  std::unique_ptr<SpanChecker> spans_;
  CodePlaces places_;
};

}  // namespace ncp2::dsm
