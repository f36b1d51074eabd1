#pragma once
// What workload code sees: one Process per emulated node, used inside that node's fiber. The
// mapping from TreadMarks' API (docs/writing-workloads.md):
//   Tmk_proc_id / Tmk_nprocs          p.id() / p.nprocs()
//   Tmk_malloc + Tmk_distribute       p.alloc<T>(name, n) / p.alloc2d<T>(name, rows, cols)  (collective)
//   Tmk_lock_acquire / _release       p.lock_acquire(l) / p.lock_release(l), or auto g = p.lock(l);
//   Tmk_barrier(b)                    p.barrier(b)
//   Tmk_exit                          implicit when the body returns
//   (computation)                     p.compute(duration) / p.compute_cycles(n)
// Shared data is read and written through views: `auto a = p.view(array); a.get(i); a.set(i, v);`
// whose fast path — page valid in the needed mode — is one predictable branch.
#include <cstddef>
#include <cstdint>
#include <exception>
#include <span>
#include <string_view>
#include <type_traits>

#include "dsm/runtime.hpp"
#include "dsm/source_position.hpp"
#include "emulator/time.hpp"

namespace ncp2::dsm {

template <class T>
class ArrayView;

// A shared array of T: the same handle on every node. Access it through a view of a Process.
template <class T>
class SharedArray {
  static_assert(std::is_trivially_copyable_v<T>, "shared data must be trivially copyable");

 public:
  SharedArray() = default;
  [[nodiscard]] std::size_t size() const { return count_; }
  [[nodiscard]] std::uint32_t region() const { return region_; }

 private:
  friend class Process;
  SharedArray(std::uint32_t region, std::size_t count) : region_(region), count_(count) {}
  std::uint32_t region_ = 0;
  std::size_t count_ = 0;
};

// A shared row-major matrix (a SharedArray of rows * cols).
template <class T>
struct SharedMatrix {
  SharedArray<T> data;
  std::size_t rows = 0;
  std::size_t cols = 0;
  [[nodiscard]] std::size_t index(std::size_t r, std::size_t c) const { return r * cols + c; }
};

// Operation counts of a stretch of workload code, charged with the config's cycles per operation
// (cost.flop, cost.int_op, ...): `p.charge(OpCounts{.flops = 4, .loads = 5, .stores = 1} * n)`.
struct OpCounts {
  double flops = 0;
  double int_ops = 0;
  double loads = 0;
  double stores = 0;
  double branches = 0;

  friend OpCounts operator*(OpCounts o, double times) {
    return {o.flops * times, o.int_ops * times, o.loads * times, o.stores * times, o.branches * times};
  }
  friend OpCounts operator*(double times, OpCounts o) { return o * times; }
  friend OpCounts operator+(OpCounts a, const OpCounts& b) {
    return {a.flops + b.flops, a.int_ops + b.int_ops, a.loads + b.loads, a.stores + b.stores,
            a.branches + b.branches};
  }
};

class Process {
 public:
  Process(Runtime& runtime, NodeId node, std::size_t page_size)
      : runtime_(&runtime), node_(node), page_shift_(shift_of(page_size)) {}

  [[nodiscard]] int id() const { return emu::index(node_); }
  [[nodiscard]] int nprocs() const { return runtime_->nodes(); }
  [[nodiscard]] NodeId node() const { return node_; }
  [[nodiscard]] Runtime& runtime() const { return *runtime_; }

  // Collective: every process calls alloc in the same order with the same arguments.
  template <class T>
  SharedArray<T> alloc(std::string_view name, std::size_t count) {
    return SharedArray<T>(runtime_->allocate(node_, name, count, sizeof(T)), count);
  }
  template <class T>
  SharedMatrix<T> alloc2d(std::string_view name, std::size_t rows, std::size_t cols) {
    return SharedMatrix<T>{alloc<T>(name, rows * cols), rows, cols};
  }

  template <class T>
  ArrayView<T> view(const SharedArray<T>& array) {
    return ArrayView<T>(*this, array.region(), array.size());
  }

  // Each call's source line gets its PP time when the profiler attributes lines (LineScope); a
  // caller that keeps its own attribution (a program run from outside) passes SourcePosition{}.
  void lock_acquire(LockId lock, SourcePosition at = SourcePosition::here()) {
    const LineScope line(*this, at);
    runtime_->lock_acquire(node_, lock);
  }
  void lock_release(LockId lock, SourcePosition at = SourcePosition::here()) {
    const LineScope line(*this, at);
    runtime_->lock_release(node_, lock);
  }
  void lock_acquire(std::uint32_t lock, SourcePosition at = SourcePosition::here()) {
    lock_acquire(LockId{lock}, at);
  }
  void lock_release(std::uint32_t lock, SourcePosition at = SourcePosition::here()) {
    lock_release(LockId{lock}, at);
  }

  class LockGuard {
   public:
    LockGuard(Process& p, LockId lock, SourcePosition at)
        : p_(&p), lock_(lock), at_(at), unwinding_(std::uncaught_exceptions()) {
      p_->lock_acquire(lock_, at_);
    }
    // Not while an exception unwinds the program: the run is over (an error, or the kernel
    // tearing the fibers down after an interrupt or a deadlock), and releasing would run the
    // protocol on a machine that is gone.
    ~LockGuard() {
      if (p_ && std::uncaught_exceptions() == unwinding_) p_->lock_release(lock_, at_);
    }
    LockGuard(const LockGuard&) = delete;
    LockGuard& operator=(const LockGuard&) = delete;
    LockGuard(LockGuard&& o) noexcept : p_(o.p_), lock_(o.lock_), at_(o.at_), unwinding_(o.unwinding_) {
      o.p_ = nullptr;
    }
    LockGuard& operator=(LockGuard&&) = delete;

   private:
    Process* p_;
    LockId lock_;
    SourcePosition at_;  // where the guard was taken: its acquire's and its release's line
    int unwinding_;      // exceptions in flight when acquired
  };
  [[nodiscard]] LockGuard lock(LockId lock, SourcePosition at = SourcePosition::here()) {
    return {*this, lock, at};
  }
  [[nodiscard]] LockGuard lock(std::uint32_t lock, SourcePosition at = SourcePosition::here()) {
    return {*this, LockId{lock}, at};
  }

  void barrier(BarrierId barrier = BarrierId{0}, SourcePosition at = SourcePosition::here()) {
    const LineScope line(*this, at);
    runtime_->barrier(node_, barrier);
  }
  void barrier(std::uint32_t barrier, SourcePosition at = SourcePosition::here()) {
    this->barrier(BarrierId{barrier}, at);
  }

  // Computation in the deterministic time model.
  void compute(emu::Duration d, SourcePosition at = SourcePosition::here()) {
    const LineScope line(*this, at);
    runtime_->compute(node_, d);
  }
  void compute_cycles(std::int64_t cycles, SourcePosition at = SourcePosition::here());
  // Computation from operation counts, in cycles from the config's [cost] section.
  void charge(const OpCounts& ops, SourcePosition at = SourcePosition::here());

  // While it lives, the PP's time goes to the scope of source line `at` (when the profiler
  // attributes lines and `at` is known): CARNIVAL shades lines by the time spent on them.
  class LineScope {
   public:
    LineScope(Process& p, const SourcePosition& at) {
      if (const auto line_scope = p.runtime_->line_scope_of(); line_scope && at.file) [[unlikely]] {
        pp_ = &p.runtime_->cluster().pp(p.node_);
        previous_ = pp_->attribution().scope;
        pp_->set_scope(line_scope(at));
      }
    }
    ~LineScope() {
      if (pp_) pp_->set_scope(previous_);
    }
    LineScope(const LineScope&) = delete;
    LineScope& operator=(const LineScope&) = delete;

   private:
    emu::Processor* pp_ = nullptr;
    std::uint32_t previous_ = 0;
  };
  // A page fault of the typed API, its time on the line of the access.
  void fault_at(std::uint32_t region, std::uint32_t page, Access wanted, const SourcePosition& at) {
    const LineScope line(*this, at);
    runtime_->fault(node_, region, page, wanted);
  }
  [[nodiscard]] double cycles_of(const OpCounts& ops) const;

 private:
  template <class T>
  friend class ArrayView;
  static int shift_of(std::size_t page_size) {
    int s = 0;
    while ((std::size_t{1} << s) < page_size) ++s;
    return s;
  }

  Runtime* runtime_;
  NodeId node_;
  int page_shift_;
};

// A node's window on a shared array: get/set check the page's access at each call, so a view stays
// valid for the whole run; spans do not (read_span).
template <class T>
class ArrayView {
 public:
  ArrayView(Process& p, std::uint32_t region, std::size_t count)
      : p_(&p),
        data_(reinterpret_cast<T*>(p.runtime().region_data(p.node(), region))),
        access_(p.runtime().region_access(p.node(), region)),
        count_(count),
        region_(region),
        page_shift_(p.page_shift_),
        races_(p.runtime().race_detector() != nullptr),
        spans_(p.runtime().checking_spans()) {}

  [[nodiscard]] std::size_t size() const { return count_; }

  // The source location of each call is where a data race is reported (--detect-races).
  [[nodiscard]] T get(std::size_t i, SourcePosition at = SourcePosition::here()) const {
    check(i);
    const auto page = page_of(i);
    if (access_[page] < static_cast<std::uint8_t>(Access::Read)) [[unlikely]]
      p_->fault_at(region_, page, Access::Read, at);
    if (races_) [[unlikely]]
      record(i, 1, false, at);
    return data_[i];
  }

  void set(std::size_t i, const T& value, SourcePosition at = SourcePosition::here()) const {
    check(i);
    const auto page = page_of(i);
    if (access_[page] != static_cast<std::uint8_t>(Access::Write)) [[unlikely]]
      p_->fault_at(region_, page, Access::Write, at);
    if (races_) [[unlikely]]
      record(i, 1, true, at);
    data_[i] = value;
  }

  // Elements [first, first + n) readable as one span, valid until this process's next
  // synchronization (lock acquire or release, barrier): the pages are made valid when it is taken,
  // not at each access. For race detection, a read span reads all of them and a write span writes
  // all of them, when it is taken. Checking spans (Runtime::check_spans), a use after that
  // synchronization is an error naming its line and `at`.
  [[nodiscard]] std::span<const T> read_span(std::size_t first, std::size_t n,
                                             SourcePosition at = SourcePosition::here()) const {
    ensure(first, n, Access::Read, at);
    if (races_) [[unlikely]]
      record(first, n, false, at);
    return {span_base(first, n, at) + first, n};
  }
  [[nodiscard]] std::span<T> write_span(std::size_t first, std::size_t n,
                                        SourcePosition at = SourcePosition::here()) const {
    ensure(first, n, Access::Write, at);
    if (races_) [[unlikely]]
      record(first, n, true, at);
    return {span_base(first, n, at) + first, n};
  }

 private:
  void check(std::size_t i) const {
    if (i >= count_) [[unlikely]]
      p_->runtime().out_of_range(p_->node(), region_, i, count_);
  }
  void record(std::size_t first, std::size_t n, bool write, const SourcePosition& at) const {
    p_->runtime().record_access(
        p_->node(), region_, first * sizeof(T), n * sizeof(T), write,
        {reinterpret_cast<std::uintptr_t>(at.file), static_cast<std::uint32_t>(at.line), 0});
  }
  [[nodiscard]] std::uint32_t page_of(std::size_t i) const {
    return static_cast<std::uint32_t>((i * sizeof(T)) >> page_shift_);
  }
  // Where spans point: the node's copy, or (checking spans) this stretch's view of it.
  [[nodiscard]] T* span_base(std::size_t first, std::size_t n, const SourcePosition& at) const {
    if (!spans_ || n == 0) [[likely]]
      return data_;
    return reinterpret_cast<T*>(
        p_->runtime().take_span(p_->node(), region_, first * sizeof(T), n * sizeof(T), at.file, at.line));
  }
  void ensure(std::size_t first, std::size_t n, Access wanted, const SourcePosition& at) const {
    if (n == 0) return;
    check(first);
    check(first + n - 1);
    const auto want = static_cast<std::uint8_t>(wanted);
    for (std::uint32_t page = page_of(first), last = page_of(first + n - 1); page <= last; ++page)
      if (access_[page] < want) p_->fault_at(region_, page, wanted, at);
  }

  Process* p_;
  T* data_;
  const std::uint8_t* access_;
  std::size_t count_;
  std::uint32_t region_;
  int page_shift_;
  bool races_;  // race detection is on: record every access
  bool spans_;  // checking spans: they point into views that close at the next synchronization
};

}  // namespace ncp2::dsm
