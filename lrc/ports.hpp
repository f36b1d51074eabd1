#pragma once
// The protocol core's two ports (lrc/node.hpp). The core sends nothing and waits for nothing: its
// operations return what to send and to whom, and each transport (the emulated machine's messages
// in dsm/, UCX in real_machine/) carries it and blocks its caller its own way, as SimGrid's
// activities return what to wait for and the caller decides how to block. What the core needs of
// the outside is the node's memory and, in an emulated run only, somewhere to charge modelled
// costs.
#include <cstddef>
#include <span>

#include "lrc/diff.hpp"
#include "lrc/types.hpp"

namespace ncp2::lrc {

// A node's copy of the shared pages: where the core reads twins and diffs from and applies diffs
// and fetched pages to.
class PageMemory {
 public:
  [[nodiscard]] virtual std::span<std::byte> page(PageId page) = 0;

 protected:
  PageMemory() = default;
  ~PageMemory() = default;
  PageMemory(const PageMemory&) = default;
  PageMemory& operator=(const PageMemory&) = default;
};

// Modelled costs of the protocol's own work, told at the moment the work is done (the emulator
// charges the PP or the command that does it; a real run measures its time instead: NoCosts).
class CostSink {
 public:
  virtual void write_notices(std::size_t count) = 0;  // made when an interval closes, or applied
  // An interval that wrote `pages` pages closed: the node's own work per page there (a real node's
  // agent makes each page's twin and diff at the close, copy_at_close). Only the emulator charges it.
  virtual void interval_closed(std::size_t /*pages*/) {}
  virtual void diff_made(PageId page, DiffSize size) = 0;  // a diff computed from its twin
  // TreadMarks, which makes diffs lazily, would make the page's diff now (requested, or the page
  // is invalidated): the emulator's lazy-diff model charges it here.
  virtual void diff_wanted(PageId page) = 0;
  virtual void twin_made(PageId page) = 0;
  virtual void diffs_applied(std::size_t words) = 0;
  virtual void history_discarded() = 0;  // a garbage collection dropped every twin and diff

 protected:
  CostSink() = default;
  ~CostSink() = default;
  CostSink(const CostSink&) = default;
  CostSink& operator=(const CostSink&) = default;
};

class NoCosts final : public CostSink {
 public:
  void write_notices(std::size_t /*count*/) override {}
  void diff_made(PageId /*page*/, DiffSize /*size*/) override {}
  void diff_wanted(PageId /*page*/) override {}
  void twin_made(PageId /*page*/) override {}
  void diffs_applied(std::size_t /*words*/) override {}
  void history_discarded() override {}
};

}  // namespace ncp2::lrc
