// gauss: Gaussian elimination with partial pivoting of an n x (n+1) augmented system [A | b] of
// doubles, then back substitution (written here from the algorithm). Row i belongs to node
// i % nodes (cyclic, so the shrinking active part stays balanced). Rows are never swapped: a row
// chosen as pivot is marked used and the pivot order is kept, which is equivalent. Step k:
//   pivot search:    each node finds, among its unused rows, the largest |a[i][k]| (ties: the
//                    lowest row) and writes it to its slot of the shared candidates; barrier;
//   pivot broadcast: every node picks the same winner from the candidates; its owner copies the
//                    pivot row (columns k..n) into the shared pivot buffer; barrier;
//   elimination:     each node subtracts the pivot row times a[i][k] / pivot[k] from its unused
//                    rows, reading the pivot row from the buffer (one page fetched by every node).
// Rows are padded to whole pages by default (pad_rows), so that rows of different nodes never
// share a page; with packed rows every page has two writers and every step moves diffs.
// Then node 0 solves the triangular system in pivot order (back substitution, reading every
// row) into the shared x. Every operation happens in the same order as in the sequential
// reference, so x is bit-identical to it. Barriers: 2 per step + the exit barrier.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <vector>

#include <fmt/format.h>

#include "carnival/scope.hpp"
#include "workloads/registry.hpp"

namespace ncp2::workloads {
namespace {

constexpr dsm::OpCounts kPerEliminated{.flops = 2, .int_ops = 1, .loads = 2, .stores = 1, .branches = 1};
constexpr dsm::OpCounts kPerSearched{.flops = 2, .int_ops = 1, .loads = 1, .stores = 0, .branches = 2};
constexpr dsm::OpCounts kPerCopied{.flops = 0, .int_ops = 1, .loads = 1, .stores = 1, .branches = 1};
constexpr dsm::OpCounts kPerDivide{.flops = 20, .int_ops = 0, .loads = 0, .stores = 0, .branches = 0};
constexpr std::size_t kChargeElements = 4096;

// A node's best pivot candidate for the current column.
struct Candidate {
  double magnitude = -1;  // -1: the node has no unused row left
  std::int64_t row = -1;
};
// The better of two candidates: larger magnitude, then lower row.
bool better(const Candidate& a, const Candidate& b) {
  return a.magnitude > b.magnitude ||
         (a.magnitude == b.magnitude && a.row >= 0 && (b.row < 0 || a.row < b.row));
}

// Seeded entries in [-1, 1): not diagonally dominant, so the pivoting matters.
double entry(std::uint64_t seed, std::size_t i) {
  return static_cast<double>(seeded(seed, i) >> 11) * 0x1p-52 - 1.0;
}

// row[j] -= (row[k] / pivot[k]) * pivot[j] for j in (k, n]; row[k] becomes 0. Shared by the
// emulated run and the sequential reference.
void eliminate_row(double* row, const double* pivot, std::size_t k, std::size_t cols) {
  const double m = row[k] / pivot[k];
  row[k] = 0.0;
  for (std::size_t j = k + 1; j < cols; ++j) row[j] -= m * pivot[j];
}

// x from the eliminated rows taken in pivot order: row(k) has zeros left of column k.
template <class RowOf>
std::vector<double> back_substitute(const RowOf& row_of, std::size_t n) {
  std::vector<double> x(n);
  for (std::size_t k = n; k-- > 0;) {
    const double* row = row_of(k);
    double s = row[n];
    for (std::size_t j = k + 1; j < n; ++j) s -= row[j] * x[j];
    x[k] = s / row[k];
  }
  return x;
}

class Gauss final : public Instance {
 public:
  Gauss(std::size_t n, bool pad_rows, int nodes, std::uint64_t seed)
      : n_(n),
        cols_(n + 1),
        stride_(n + 1),
        pad_rows_(pad_rows),
        nodes_(nodes),
        seed_(seed),
        pivots_(static_cast<std::size_t>(nodes)),
        used_(static_cast<std::size_t>(nodes)) {}

  void run(dsm::Process& p) override {
    allocate(p);
    initialize(p);
    for (std::size_t k = 0; k < n_; ++k) {
      CARNIVAL_SCOPE_KIND(p, "elimination step", "loop");
      search_pivot(p, k);
      p.barrier(0);
      broadcast_pivot(p, k);
      p.barrier(0);
      eliminate(p, k);
    }
    if (p.id() == 0) back_substitution(p);
  }

  void verify(dsm::Process& p) override {
    if (p.id() != 0) return;
    const std::vector<double> expected = sequential();
    const std::span<const double> got = p.view(x_).read_span(0, n_);
    std::size_t wrong = 0;
    std::size_t first = 0;
    for (std::size_t i = 0; i < n_; ++i)
      if (std::bit_cast<std::uint64_t>(got[i]) != std::bit_cast<std::uint64_t>(expected[i]) && wrong++ == 0)
        first = i;
    if (wrong != 0)
      return fail(fmt::format(
          "{} of {} unknowns differ from the sequential elimination; first x[{}] = {}, expected {}", wrong,
          n_, first, got[first], expected[first]));
    // The algorithm itself: the residual of the original system (not a comparison between runs).
    double residual = 0;
    double scale = 0;
    for (std::size_t i = 0; i < n_; ++i) {
      double s = -entry(seed_, i * cols_ + n_);
      for (std::size_t j = 0; j < n_; ++j) s += entry(seed_, i * cols_ + j) * got[j];
      residual = std::max(residual, std::abs(s));
      for (std::size_t j = 0; j < n_; ++j)
        scale = std::max(scale, std::abs(entry(seed_, i * cols_ + j) * got[j]));
    }
    const double tolerance = 1e-9 * static_cast<double>(n_) * std::max(scale, 1.0);
    if (!(residual <= tolerance))
      return fail(fmt::format("x matches the sequential elimination but max |Ax - b| = {:.3g} > {:.3g}",
                              residual, tolerance));
    pass(fmt::format("x ({} unknowns) bit-identical to the sequential elimination; max |Ax - b| = {:.3g}", n_,
                     residual));
  }

 private:
  [[nodiscard]] int owner(std::size_t row) const {
    return static_cast<int>(row % static_cast<std::size_t>(nodes_));
  }

  void allocate(dsm::Process& p) {
    // Padded rows start on a page boundary, so each page has a single writer.
    const auto page_doubles =
        static_cast<std::size_t>(p.runtime().cluster().config().memory.page_size) / sizeof(double);
    stride_ = pad_rows_ ? (cols_ + page_doubles - 1) / page_doubles * page_doubles : cols_;
    a_ = p.alloc<double>("gauss.matrix", n_ * stride_);
    candidates_ = p.alloc<Candidate>("gauss.candidates", static_cast<std::size_t>(nodes_));
    pivot_row_ = p.alloc<double>("gauss.pivot_row", cols_);
    x_ = p.alloc<double>("gauss.x", n_);
    pivots_[static_cast<std::size_t>(p.id())].clear();
    used_[static_cast<std::size_t>(p.id())].assign(n_, false);
  }

  // Each node writes its own rows.
  void initialize(dsm::Process& p) const {
    CARNIVAL_SCOPE_KIND(p, "initialize", "function");
    const auto a = p.view(a_);
    std::size_t written = 0;
    for (auto i = static_cast<std::size_t>(p.id()); i < n_; i += static_cast<std::size_t>(nodes_)) {
      const std::span<double> row = a.write_span(i * stride_, cols_);
      for (std::size_t j = 0; j < cols_; ++j) row[j] = entry(seed_, i * cols_ + j);
      written += cols_;
    }
    p.charge(kPerCopied * static_cast<double>(written));
  }

  // This node's best unused row for column k, into its candidate slot.
  void search_pivot(dsm::Process& p, std::size_t k) const {
    CARNIVAL_SCOPE_KIND(p, "pivot search", "function");
    const auto a = p.view(a_);
    const auto& used = used_[static_cast<std::size_t>(p.id())];
    Candidate best;
    std::size_t searched = 0;
    for (auto i = static_cast<std::size_t>(p.id()); i < n_; i += static_cast<std::size_t>(nodes_)) {
      if (used[i]) continue;
      const Candidate c{std::abs(a.read_span(i * stride_ + k, 1)[0]), static_cast<std::int64_t>(i)};
      if (better(c, best)) best = c;
      ++searched;
    }
    p.view(candidates_).set(static_cast<std::size_t>(p.id()), best);
    p.charge(kPerSearched * static_cast<double>(searched));
  }

  // Every node agrees on the pivot; its owner publishes the pivot row.
  void broadcast_pivot(dsm::Process& p, std::size_t k) {
    CARNIVAL_SCOPE_KIND(p, "pivot broadcast", "function");
    const std::span<const Candidate> all = p.view(candidates_).read_span(0, static_cast<std::size_t>(nodes_));
    Candidate best;
    for (const Candidate& c : all)
      if (better(c, best)) best = c;
    const auto pivot = static_cast<std::size_t>(best.row);
    pivots_[static_cast<std::size_t>(p.id())].push_back(pivot);
    used_[static_cast<std::size_t>(p.id())][pivot] = true;
    p.charge(kPerSearched * static_cast<double>(nodes_));
    if (owner(pivot) != p.id()) return;
    const std::span<const double> row = p.view(a_).read_span(pivot * stride_ + k, cols_ - k);
    std::ranges::copy(row, p.view(pivot_row_).write_span(k, cols_ - k).begin());
    p.charge(kPerCopied * static_cast<double>(cols_ - k));
  }

  // Subtracts the pivot row from this node's unused rows.
  void eliminate(dsm::Process& p, std::size_t k) const {
    CARNIVAL_SCOPE_KIND(p, "eliminate", "function");
    if (k + 1 == n_) return;  // the last pivot has nothing below it
    const auto a = p.view(a_);
    const auto& used = used_[static_cast<std::size_t>(p.id())];
    const double* pivot = p.view(pivot_row_).read_span(0, cols_).data();
    std::size_t pending = 0;  // elements eliminated since the last charge
    std::size_t divides = 0;
    for (auto i = static_cast<std::size_t>(p.id()); i < n_; i += static_cast<std::size_t>(nodes_)) {
      if (used[i]) continue;
      eliminate_row(a.write_span(i * stride_, cols_).data(), pivot, k, cols_);
      pending += cols_ - k;
      ++divides;
      if (pending >= kChargeElements) {
        p.charge(kPerEliminated * static_cast<double>(pending) + kPerDivide * static_cast<double>(divides));
        pending = divides = 0;
      }
    }
    p.charge(kPerEliminated * static_cast<double>(pending) + kPerDivide * static_cast<double>(divides));
  }

  // Node 0: x from the rows in pivot order.
  void back_substitution(dsm::Process& p) const {
    CARNIVAL_SCOPE_KIND(p, "back substitution", "function");
    const auto a = p.view(a_);
    const auto& order = pivots_[0];
    const std::vector<double> x =
        back_substitute([&](std::size_t k) { return a.read_span(order[k] * stride_, cols_).data(); }, n_);
    std::ranges::copy(x, p.view(x_).write_span(0, n_).begin());
    // About n^2 / 2 eliminated elements, counted as an integer (the charge the runs were calibrated with).
    p.charge(kPerEliminated * static_cast<double>(n_ * n_ / 2) +  // NOLINT(bugprone-integer-division)
             kPerDivide * static_cast<double>(n_));
  }

  // The same elimination, natively and sequentially.
  [[nodiscard]] std::vector<double> sequential() const {
    std::vector<double> a(n_ * cols_);
    for (std::size_t i = 0; i < a.size(); ++i) a[i] = entry(seed_, i);
    std::vector<bool> used(n_, false);
    std::vector<std::size_t> order;
    for (std::size_t k = 0; k < n_; ++k) {
      Candidate best;
      for (std::size_t i = 0; i < n_; ++i) {
        const Candidate c{std::abs(a[i * cols_ + k]), static_cast<std::int64_t>(i)};
        if (!used[i] && better(c, best)) best = c;
      }
      const auto pivot = static_cast<std::size_t>(best.row);
      used[pivot] = true;
      order.push_back(pivot);
      if (k + 1 == n_) break;
      for (std::size_t i = 0; i < n_; ++i)
        if (!used[i]) eliminate_row(&a[i * cols_], &a[pivot * cols_], k, cols_);
    }
    return back_substitute([&](std::size_t k) { return &a[order[k] * cols_]; }, n_);
  }

  std::size_t n_, cols_;
  std::size_t stride_;  // distance between rows in the shared matrix: cols_, or padded to whole pages
  bool pad_rows_;
  int nodes_;
  std::uint64_t seed_;
  std::vector<std::vector<std::size_t>> pivots_;  // per node (private): the pivot rows in order
  std::vector<std::vector<bool>> used_;           // per node (private): rows already pivots
  dsm::SharedArray<double> a_;
  dsm::SharedArray<Candidate> candidates_;
  dsm::SharedArray<double> pivot_row_;
  dsm::SharedArray<double> x_;
};

}  // namespace

Workload gauss_workload() {
  Workload w;
  w.name = "gauss";
  w.description =
      "Gaussian elimination with partial pivoting, rows cyclic over the nodes; the pivot row is broadcast "
      "through a shared buffer between two barriers per step; back substitution on node 0";
  w.parameters = {
      int_param("n", 128, "unknowns (an n x (n+1) augmented matrix of doubles)", 1, 4096),
      bool_param("pad_rows", true,
                 "start every row on a page boundary (one writer per page); false: packed rows, so rows of "
                 "different nodes share pages (false sharing)"),
  };
  // paper: 512 unknowns: our choice (no Gauss input size in this repository's sources).
  w.presets = {
      {"small", {{"n", std::int64_t{48}}}},
      {"paper", {{"n", std::int64_t{512}}}},
  };
  w.validate = [](const Params& params, int nodes) {
    if (params.integer("n") < nodes)
      throw WorkloadError(
          fmt::format("gauss needs at least one row per node: n={} < nodes={}", params.integer("n"), nodes));
  };
  w.make = [](const Params& params, int nodes, std::uint64_t seed) {
    return std::make_unique<Gauss>(static_cast<std::size_t>(params.integer("n")), params.flag("pad_rows"),
                                   nodes, seed);
  };
  return w;
}

}  // namespace ncp2::workloads
