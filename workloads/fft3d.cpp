// fft3d: a 3-D FFT with transposes, NAS FT-like (written here from the algorithm). A complex
// nx x ny x nz grid is kept in two distributions:
//   planes  (A): element (x, y, z) at (z * ny + y) * nx + x; node j owns a band of z-planes;
//   pencils (B): element (x, y, z) at (y * nx + x) * nz + z; node j owns a band of y values.
// Forward transform: 1-D FFTs along x and y inside each own z-plane; barrier; transpose A -> B
// (each node gathers its y band from every node's planes: the all-to-all exchange, done by
// page faults); 1-D FFTs along z inside its own pencils. Then each iteration t (NAS FT's time
// evolution): multiply by exp(-4 pi^2 alpha |k|^2)^t; inverse FFTs along z; barrier; transpose
// B -> A into the result grid; inverse FFTs along y and x (scaled by 1/N) in the own planes; each
// node adds up its planes into checksum[t][node]; barrier (the next iteration rewrites the
// pencils the others have just read). Barriers: 1 + 2 per iteration - 1 + the exit barrier.
// Verification (node 0, after the run): the result grid of the last iteration against the same
// transforms done sequentially (same kernels, same order: bit-identical expected, tolerance
// 1e-12 relative to the largest magnitude); each iteration's checksum, summed over the nodes
// (the summation order depends on the node count: tolerance 1e-12 relative); and Parseval's
// identity on the forward transform, sum |U|^2 = N sum |u|^2 (tolerance 1e-10 relative), which
// checks the FFT itself.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <numbers>
#include <vector>

#include <fmt/format.h>

#include "carnival/scope.hpp"
#include "workloads/registry.hpp"

namespace ncp2::workloads {
namespace {

struct Complex {
  double re = 0;
  double im = 0;
};
Complex operator+(Complex a, Complex b) { return {a.re + b.re, a.im + b.im}; }
Complex operator-(Complex a, Complex b) { return {a.re - b.re, a.im - b.im}; }
Complex operator*(Complex a, Complex b) { return {a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re}; }
Complex operator*(Complex a, double s) { return {a.re * s, a.im * s}; }

constexpr double kAlpha = 1e-6;  // NAS FT's diffusion constant

// One radix-2 butterfly: a complex multiply and two complex adds; 2 points and a twiddle in, 2 out.
constexpr dsm::OpCounts kPerButterfly{.flops = 10, .int_ops = 2, .loads = 6, .stores = 4, .branches = 1};
// Moving one complex element (bit reversal, gather/scatter of a line, transpose).
constexpr dsm::OpCounts kPerMove{.flops = 0, .int_ops = 2, .loads = 2, .stores = 2, .branches = 1};
// Evolution of one element: the running power and the product (3 real multiplies each).
constexpr dsm::OpCounts kPerEvolve{.flops = 5, .int_ops = 1, .loads = 4, .stores = 3, .branches = 1};
constexpr dsm::OpCounts kPerSum{.flops = 2, .int_ops = 1, .loads = 2, .stores = 0, .branches = 1};

// In-place iterative radix-2 FFT of a line of n = 2^k points. `twiddle[j]` = exp(-2 pi i j / n)
// for j < n / 2; inverse: conjugated twiddles (no scaling). Returns its operation counts.
dsm::OpCounts fft_line(Complex* a, std::size_t n, const std::vector<Complex>& twiddle, bool inverse) {
  for (std::size_t i = 1, j = 0; i < n; ++i) {  // bit-reversal permutation
    std::size_t bit = n >> 1;
    for (; (j & bit) != 0; bit >>= 1) j ^= bit;
    j |= bit;
    if (i < j) std::swap(a[i], a[j]);
  }
  for (std::size_t len = 2; len <= n; len <<= 1) {
    const std::size_t stride = n / len;
    for (std::size_t start = 0; start < n; start += len)
      for (std::size_t k = 0; k < len / 2; ++k) {
        Complex w = twiddle[k * stride];
        if (inverse) w.im = -w.im;
        const Complex u = a[start + k];
        const Complex v = a[start + k + len / 2] * w;
        a[start + k] = u + v;
        a[start + k + len / 2] = u - v;
      }
  }
  const auto log2n = static_cast<double>(std::countr_zero(n));
  // n is a power of two: n / 2 butterflies per stage, exactly.
  return kPerButterfly * (static_cast<double>(n / 2) * log2n)  // NOLINT(bugprone-integer-division)
         + kPerMove * static_cast<double>(n);
}

std::vector<Complex> twiddles(std::size_t n) {
  std::vector<Complex> t(n / 2);
  for (std::size_t j = 0; j < n / 2; ++j) {
    const double angle = -2.0 * std::numbers::pi * static_cast<double>(j) / static_cast<double>(n);
    t[j] = {std::cos(angle), std::sin(angle)};
  }
  return t;
}

// The signed frequency of index k in a transform of n points.
double frequency(std::size_t k, std::size_t n) {
  return k < n / 2 ? static_cast<double>(k) : static_cast<double>(k) - static_cast<double>(n);
}

struct Shape {
  std::size_t nx = 0, ny = 0, nz = 0;
  std::int64_t iterations = 0;
  [[nodiscard]] std::size_t points() const { return nx * ny * nz; }
  [[nodiscard]] std::size_t plane(std::size_t x, std::size_t y, std::size_t z) const {
    return (z * ny + y) * nx + x;
  }
  [[nodiscard]] std::size_t pencil(std::size_t x, std::size_t y, std::size_t z) const {
    return (y * nx + x) * nz + z;
  }
};

// The kernels on the planes and pencils, shared by the emulated run and the sequential
// reference. A "plane" is nx * ny elements in A order; a "pencil group" is the nx * nz elements
// of one y in B order.
struct Kernels {
  explicit Kernels(const Shape& s) : shape(s), tx(twiddles(s.nx)), ty(twiddles(s.ny)), tz(twiddles(s.nz)) {}

  // FFTs along x then y of one z-plane (forward), or along y then x (inverse, scaled by 1/N).
  dsm::OpCounts plane_xy(Complex* plane, bool inverse, std::vector<Complex>& line) const {
    const std::size_t nx = shape.nx, ny = shape.ny;
    dsm::OpCounts ops;
    line.resize(ny);
    const auto along_x = [&] {
      for (std::size_t y = 0; y < ny; ++y) ops = ops + fft_line(plane + y * nx, nx, tx, inverse);
    };
    const auto along_y = [&] {
      for (std::size_t x = 0; x < nx; ++x) {
        for (std::size_t y = 0; y < ny; ++y) line[y] = plane[y * nx + x];
        ops = ops + fft_line(line.data(), ny, ty, inverse);
        for (std::size_t y = 0; y < ny; ++y) plane[y * nx + x] = line[y];
        ops = ops + kPerMove * static_cast<double>(2 * ny);
      }
    };
    if (!inverse) {
      along_x();
      along_y();
    } else {
      along_y();
      along_x();
      const double scale = 1.0 / static_cast<double>(shape.points());
      for (std::size_t i = 0; i < nx * ny; ++i) plane[i] = plane[i] * scale;
      ops = ops + kPerSum * static_cast<double>(nx * ny);
    }
    return ops;
  }

  // FFTs along z of the nx pencils of one y.
  dsm::OpCounts pencils_z(Complex* pencils, bool inverse) const {
    dsm::OpCounts ops;
    for (std::size_t x = 0; x < shape.nx; ++x)
      ops = ops + fft_line(pencils + x * shape.nz, shape.nz, tz, inverse);
    return ops;
  }

  // The evolution factor exp(-4 pi^2 alpha |k|^2) of (x, y, z).
  [[nodiscard]] double decay(std::size_t x, std::size_t y, std::size_t z) const {
    const double fx = frequency(x, shape.nx), fy = frequency(y, shape.ny), fz = frequency(z, shape.nz);
    return std::exp(-4.0 * std::numbers::pi * std::numbers::pi * kAlpha * (fx * fx + fy * fy + fz * fz));
  }

  Shape shape;
  std::vector<Complex> tx, ty, tz;
};

Complex initial(std::uint64_t seed, std::size_t i) {
  const auto bits = seeded(seed, i);
  return {static_cast<double>(bits >> 40) * 0x1p-24, static_cast<double>(bits & 0xFFFFFF) * 0x1p-24};
}

// Per node, private: the running powers of the decay factor over its pencils.
struct NodeState {
  std::vector<double> decay, power;
  std::vector<Complex> line;
};

class Fft3d final : public Instance {
 public:
  Fft3d(const Shape& shape, int nodes, std::uint64_t seed)
      : s_(shape), kernels_(shape), nodes_(nodes), seed_(seed), state_(static_cast<std::size_t>(nodes)) {}

  void run(dsm::Process& p) override {
    allocate(p);
    initialize(p);
    {
      CARNIVAL_SCOPE_KIND(p, "forward 3-D FFT", "block");
      planes_xy(p, u_, false);
      p.barrier(0);
      transpose_to_pencils(p, u_, uhat_);
      pencils_z(p, uhat_, false);
    }
    for (std::int64_t t = 1; t <= s_.iterations; ++t) {
      CARNIVAL_SCOPE_KIND(p, "iteration", "loop");
      evolve(p);
      pencils_z(p, w_, true);
      p.barrier(0);
      transpose_to_planes(p, w_, x_);
      planes_xy(p, x_, true);
      checksum(p, t);
      if (t < s_.iterations) p.barrier(0);
    }
  }

  void verify(dsm::Process& p) override;

 private:
  [[nodiscard]] std::size_t first_z(int id) const { return block_begin(s_.nz, nodes_, id); }
  [[nodiscard]] std::size_t first_y(int id) const { return block_begin(s_.ny, nodes_, id); }
  NodeState& state(const dsm::Process& p) { return state_[static_cast<std::size_t>(p.id())]; }

  void allocate(dsm::Process& p) {
    u_ = p.alloc<Complex>("fft3d.u", s_.points());
    uhat_ = p.alloc<Complex>("fft3d.uhat", s_.points());
    w_ = p.alloc<Complex>("fft3d.w", s_.points());
    x_ = p.alloc<Complex>("fft3d.x", s_.points());
    checksums_ = p.alloc<Complex>("fft3d.checksums",
                                  static_cast<std::size_t>(s_.iterations) * static_cast<std::size_t>(nodes_));
  }

  // Own z-planes of u from the seed; own decay factors (private, like NAS FT's exponent table).
  void initialize(dsm::Process& p) {
    CARNIVAL_SCOPE_KIND(p, "initialize", "function");
    const std::size_t plane = s_.nx * s_.ny;
    const std::size_t z0 = first_z(p.id()), z1 = first_z(p.id() + 1);
    const std::span<Complex> u = p.view(u_).write_span(z0 * plane, (z1 - z0) * plane);
    for (std::size_t i = 0; i < u.size(); ++i) u[i] = initial(seed_, z0 * plane + i);
    NodeState& st = state(p);
    const std::size_t y0 = first_y(p.id()), y1 = first_y(p.id() + 1);
    st.decay.clear();
    for (std::size_t y = y0; y < y1; ++y)
      for (std::size_t x = 0; x < s_.nx; ++x)
        for (std::size_t z = 0; z < s_.nz; ++z) st.decay.push_back(kernels_.decay(x, y, z));
    st.power.assign(st.decay.size(), 1.0);
    p.charge(kPerMove * static_cast<double>(u.size()) +
             dsm::OpCounts{.flops = 40, .int_ops = 4, .loads = 0, .stores = 1, .branches = 1} *
                 static_cast<double>(st.decay.size()));
  }

  void planes_xy(dsm::Process& p, const dsm::SharedArray<Complex>& grid, bool inverse) {
    CARNIVAL_SCOPE_KIND(p, "1-D FFTs along x and y", "function");
    const std::size_t plane = s_.nx * s_.ny;
    const auto g = p.view(grid);
    for (std::size_t z = first_z(p.id()); z < first_z(p.id() + 1); ++z)
      p.charge(kernels_.plane_xy(g.write_span(z * plane, plane).data(), inverse, state(p).line));
  }

  void pencils_z(dsm::Process& p, const dsm::SharedArray<Complex>& grid, bool inverse) const {
    CARNIVAL_SCOPE_KIND(p, "1-D FFTs along z", "function");
    const std::size_t group = s_.nx * s_.nz;
    const auto g = p.view(grid);
    for (std::size_t y = first_y(p.id()); y < first_y(p.id() + 1); ++y)
      p.charge(kernels_.pencils_z(g.write_span(y * group, group).data(), inverse));
  }

  // This node's y band of every z-plane, from every node's planes into its own pencils.
  void transpose_to_pencils(dsm::Process& p, const dsm::SharedArray<Complex>& planes,
                            const dsm::SharedArray<Complex>& pencils) const {
    CARNIVAL_SCOPE_KIND(p, "transpose planes to pencils", "function");
    const std::size_t y0 = first_y(p.id()), y1 = first_y(p.id() + 1);
    const auto from = p.view(planes);
    Complex* to = p.view(pencils).write_span(s_.pencil(0, y0, 0), (y1 - y0) * s_.nx * s_.nz).data() -
                  s_.pencil(0, y0, 0);
    for (std::size_t z = 0; z < s_.nz; ++z) {
      const Complex* rows = from.read_span(s_.plane(0, y0, z), (y1 - y0) * s_.nx).data() - s_.plane(0, y0, z);
      for (std::size_t y = y0; y < y1; ++y)
        for (std::size_t x = 0; x < s_.nx; ++x) to[s_.pencil(x, y, z)] = rows[s_.plane(x, y, z)];
      p.charge(kPerMove * static_cast<double>((y1 - y0) * s_.nx));
    }
  }

  // This node's z band of every pencil, from every node's pencils into its own planes.
  void transpose_to_planes(dsm::Process& p, const dsm::SharedArray<Complex>& pencils,
                           const dsm::SharedArray<Complex>& planes) const {
    CARNIVAL_SCOPE_KIND(p, "transpose pencils to planes", "function");
    const std::size_t z0 = first_z(p.id()), z1 = first_z(p.id() + 1);
    const std::size_t plane = s_.nx * s_.ny;
    const auto from = p.view(pencils);
    Complex* to = p.view(planes).write_span(z0 * plane, (z1 - z0) * plane).data() - z0 * plane;
    for (std::size_t y = 0; y < s_.ny; ++y) {
      for (std::size_t x = 0; x < s_.nx; ++x) {
        const Complex* run = from.read_span(s_.pencil(x, y, z0), z1 - z0).data() - s_.pencil(x, y, z0);
        for (std::size_t z = z0; z < z1; ++z) to[s_.plane(x, y, z)] = run[s_.pencil(x, y, z)];
      }
      p.charge(kPerMove * static_cast<double>(s_.nx * (z1 - z0)));
    }
  }

  // w = uhat * decay^t over this node's pencils.
  void evolve(dsm::Process& p) {
    CARNIVAL_SCOPE_KIND(p, "evolve", "function");
    NodeState& st = state(p);
    const std::size_t first = s_.pencil(0, first_y(p.id()), 0);
    const std::span<const Complex> in = p.view(uhat_).read_span(first, st.decay.size());
    const std::span<Complex> out = p.view(w_).write_span(first, st.decay.size());
    for (std::size_t i = 0; i < st.decay.size(); ++i) {
      st.power[i] *= st.decay[i];
      out[i] = in[i] * st.power[i];
    }
    p.charge(kPerEvolve * static_cast<double>(st.decay.size()));
  }

  // The sum of this node's planes of the result.
  void checksum(dsm::Process& p, std::int64_t t) const {
    CARNIVAL_SCOPE_KIND(p, "checksum", "function");
    const std::size_t plane = s_.nx * s_.ny;
    const std::size_t z0 = first_z(p.id()), z1 = first_z(p.id() + 1);
    Complex sum;
    for (const Complex& c : p.view(x_).read_span(z0 * plane, (z1 - z0) * plane)) sum = sum + c;
    p.view(checksums_)
        .set(static_cast<std::size_t>(t - 1) * static_cast<std::size_t>(nodes_) +
                 static_cast<std::size_t>(p.id()),
             sum);
    p.charge(kPerSum * static_cast<double>((z1 - z0) * plane));
  }

  Shape s_;
  Kernels kernels_;
  int nodes_;
  std::uint64_t seed_;
  std::vector<NodeState> state_;
  dsm::SharedArray<Complex> u_, uhat_, w_, x_, checksums_;
};

void Fft3d::verify(dsm::Process& p) {
  if (p.id() != 0) return;
  // The same transforms, sequentially, with the same kernels in the same order.
  const std::size_t n = s_.points();
  const std::size_t plane = s_.nx * s_.ny;
  std::vector<Complex> u(n), uhat(n), w(n), x(n), line;
  for (std::size_t i = 0; i < n; ++i) u[i] = initial(seed_, i);
  double energy = 0;
  for (const Complex& c : u) energy += c.re * c.re + c.im * c.im;
  for (std::size_t z = 0; z < s_.nz; ++z) kernels_.plane_xy(&u[z * plane], false, line);
  for (std::size_t z = 0; z < s_.nz; ++z)
    for (std::size_t y = 0; y < s_.ny; ++y)
      for (std::size_t xx = 0; xx < s_.nx; ++xx) uhat[s_.pencil(xx, y, z)] = u[s_.plane(xx, y, z)];
  for (std::size_t y = 0; y < s_.ny; ++y) kernels_.pencils_z(&uhat[y * s_.nx * s_.nz], false);
  double spectrum = 0;
  for (const Complex& c : uhat) spectrum += c.re * c.re + c.im * c.im;
  const double parseval =
      std::abs(spectrum - static_cast<double>(n) * energy) / (static_cast<double>(n) * energy);
  if (!(parseval <= 1e-10))
    return fail(fmt::format("Parseval's identity fails for the sequential forward FFT: relative error {:.3g}",
                            parseval));

  std::vector<double> power(n, 1.0);
  std::vector<Complex> sums;
  for (std::int64_t t = 1; t <= s_.iterations; ++t) {
    for (std::size_t y = 0; y < s_.ny; ++y)
      for (std::size_t xx = 0; xx < s_.nx; ++xx)
        for (std::size_t z = 0; z < s_.nz; ++z) {
          const std::size_t i = s_.pencil(xx, y, z);
          power[i] *= kernels_.decay(xx, y, z);
          w[i] = uhat[i] * power[i];
        }
    for (std::size_t y = 0; y < s_.ny; ++y) kernels_.pencils_z(&w[y * s_.nx * s_.nz], true);
    for (std::size_t z = 0; z < s_.nz; ++z)
      for (std::size_t y = 0; y < s_.ny; ++y)
        for (std::size_t xx = 0; xx < s_.nx; ++xx) x[s_.plane(xx, y, z)] = w[s_.pencil(xx, y, z)];
    for (std::size_t z = 0; z < s_.nz; ++z) kernels_.plane_xy(&x[z * plane], true, line);
    Complex sum;
    for (const Complex& c : x) sum = sum + c;
    sums.push_back(sum);
  }

  double largest = 0;
  for (const Complex& c : x) largest = std::max({largest, std::abs(c.re), std::abs(c.im)});
  const std::span<const Complex> got = p.view(x_).read_span(0, n);
  double worst = 0;
  std::size_t where = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const double e = std::max(std::abs(got[i].re - x[i].re), std::abs(got[i].im - x[i].im));
    if (e > worst || std::isnan(e)) {
      worst = std::isnan(e) ? INFINITY : e;
      where = i;
    }
  }
  const double tolerance = 1e-12 * std::max(largest, 1e-300);
  if (!(worst <= tolerance))
    return fail(
        fmt::format("result differs from the sequential FFTs by {:.3g} (tolerance {:.3g}) at element {}",
                    worst, tolerance, where));
  const auto all = p.view(checksums_).read_span(0, sums.size() * static_cast<std::size_t>(nodes_));
  for (std::size_t t = 0; t < sums.size(); ++t) {
    Complex total;
    for (int node = 0; node < nodes_; ++node)
      total = total + all[t * static_cast<std::size_t>(nodes_) + static_cast<std::size_t>(node)];
    const double e = std::max(std::abs(total.re - sums[t].re), std::abs(total.im - sums[t].im));
    const double scale = std::max({std::abs(sums[t].re), std::abs(sums[t].im), 1e-300});
    if (!(e <= 1e-12 * scale))
      return fail(fmt::format("iteration {} checksum ({}, {}) differs from the sequential ({}, {})", t + 1,
                              total.re, total.im, sums[t].re, sums[t].im));
  }
  pass(
      fmt::format("{}x{}x{} FFT, {} iterations: result within {:.3g} of the sequential FFTs (tolerance 1e-12 "
                  "relative), checksums match, Parseval error {:.3g}",
                  s_.nx, s_.ny, s_.nz, s_.iterations, largest > 0 ? worst / largest : worst, parseval));
}

bool power_of_two(std::int64_t v) { return v > 0 && std::has_single_bit(static_cast<std::uint64_t>(v)); }

}  // namespace

Workload fft3d_workload() {
  Workload w;
  w.name = "fft3d";
  w.description =
      "NAS FT-like 3-D FFT of a complex grid: x/y FFTs on own z-planes, all-to-all transpose by page faults, "
      "z FFTs on own pencils; time evolution and inverse FFT per iteration, with checksums";
  w.parameters = {
      int_param("nx", 32, "grid points along x (a power of two)", 2, 1 << 12),
      int_param("ny", 32, "grid points along y (a power of two; at least one y per node)", 2, 1 << 12),
      int_param("nz", 32, "grid points along z (a power of two; at least one z-plane per node)", 2, 1 << 12),
      int_param("iterations", 4, "evolution + inverse FFT iterations", 1, 1000),
  };
  // paper: NAS FT class S, 64 x 64 x 64 and 6 iterations (the NAS Parallel Benchmarks' input).
  w.presets = {
      {"small",
       {{"nx", std::int64_t{16}},
        {"ny", std::int64_t{16}},
        {"nz", std::int64_t{16}},
        {"iterations", std::int64_t{2}}}},
      {"paper",
       {{"nx", std::int64_t{64}},
        {"ny", std::int64_t{64}},
        {"nz", std::int64_t{64}},
        {"iterations", std::int64_t{6}}}},
  };
  w.validate = [](const Params& params, int nodes) {
    for (const char* axis : {"nx", "ny", "nz"})
      if (!power_of_two(params.integer(axis)))
        throw WorkloadError(fmt::format("fft3d needs power-of-two sizes: {}={}", axis, params.integer(axis)));
    if (params.integer("nz") < nodes)
      throw WorkloadError(fmt::format("fft3d needs at least one z-plane per node: nz={} < nodes={}",
                                      params.integer("nz"), nodes));
    if (params.integer("ny") < nodes)
      throw WorkloadError(
          fmt::format("fft3d needs at least one y value per node for the transposed grid: ny={} < "
                      "nodes={}",
                      params.integer("ny"), nodes));
    if (params.integer("nx") * params.integer("ny") * params.integer("nz") > (std::int64_t{1} << 24))
      throw WorkloadError(fmt::format("fft3d grid too large: nx*ny*nz = {} > 2^24 points",
                                      params.integer("nx") * params.integer("ny") * params.integer("nz")));
  };
  w.make = [](const Params& params, int nodes, std::uint64_t seed) {
    return std::make_unique<Fft3d>(Shape{.nx = static_cast<std::size_t>(params.integer("nx")),
                                         .ny = static_cast<std::size_t>(params.integer("ny")),
                                         .nz = static_cast<std::size_t>(params.integer("nz")),
                                         .iterations = params.integer("iterations")},
                                   nodes, seed);
  };
  return w;
}

}  // namespace ncp2::workloads
