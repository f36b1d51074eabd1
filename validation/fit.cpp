// The fit of a machine's costs to basic operation costs (validation/fit.hpp).
#include "validation/fit.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <utility>

#include <fmt/format.h>
#include <toml++/toml.h>

#include "emulator/units.hpp"

namespace ncp2::validation {

namespace {

// Rows of the least-squares problem: per target, the emulated cost's sensitivity to each
// parameter, and what is left to reach the target; both divided by the target (relative errors).
struct Linear {
  std::vector<std::vector<double>> a;  // [row][parameter]
  std::vector<double> b;               // [row]
};

// The least-squares solution over the columns in `cols` (normal equations, Gaussian elimination
// with partial pivoting: a few parameters).
std::vector<double> least_squares(const Linear& l, const std::vector<std::size_t>& cols) {
  const std::size_t k = cols.size();
  std::vector<std::vector<double>> m(k, std::vector<double>(k + 1, 0));
  for (std::size_t r = 0; r < k; ++r) {
    for (std::size_t c = 0; c < k; ++c)
      for (std::size_t i = 0; i < l.b.size(); ++i) m[r][c] += l.a[i][cols[r]] * l.a[i][cols[c]];
    for (std::size_t i = 0; i < l.b.size(); ++i) m[r][k] += l.a[i][cols[r]] * l.b[i];
  }
  for (std::size_t c = 0; c < k; ++c) {
    std::size_t pivot = c;
    for (std::size_t r = c + 1; r < k; ++r)
      if (std::abs(m[r][c]) > std::abs(m[pivot][c])) pivot = r;
    std::swap(m[c], m[pivot]);
    if (std::abs(m[c][c]) < 1e-300) continue;
    for (std::size_t r = 0; r < k; ++r) {
      if (r == c) continue;
      const double f = m[r][c] / m[c][c];
      for (std::size_t q = c; q <= k; ++q) m[r][q] -= f * m[c][q];
    }
  }
  std::vector<double> s(k, 0);
  for (std::size_t c = 0; c < k; ++c) s[c] = std::abs(m[c][c]) < 1e-300 ? 0 : m[c][k] / m[c][c];
  return s;
}

// min |A x - b|^2 for x >= 0: Lawson and Hanson's active-set method.
std::vector<double> nonnegative_least_squares(const Linear& l, std::size_t n) {
  std::vector<double> x(n, 0);
  std::vector<bool> passive(n, false);
  const auto gradient = [&] {
    std::vector<double> w(n, 0);
    for (std::size_t i = 0; i < l.b.size(); ++i) {
      double r = l.b[i];
      for (std::size_t k = 0; k < n; ++k) r -= l.a[i][k] * x[k];
      for (std::size_t k = 0; k < n; ++k) w[k] += l.a[i][k] * r;
    }
    return w;
  };
  constexpr double kTolerance = 1e-12;
  for (std::size_t outer = 0; outer < 3 * n + 3; ++outer) {
    const std::vector<double> w = gradient();
    std::size_t best = n;
    for (std::size_t j = 0; j < n; ++j)
      if (!passive[j] && w[j] > kTolerance && (best == n || w[j] > w[best])) best = j;
    if (best == n) break;
    passive[best] = true;
    for (std::size_t inner = 0; inner < 3 * n + 3; ++inner) {
      std::vector<std::size_t> cols;
      for (std::size_t j = 0; j < n; ++j)
        if (passive[j]) cols.push_back(j);
      const std::vector<double> sp = least_squares(l, cols);
      std::vector<double> s(n, 0);
      for (std::size_t c = 0; c < cols.size(); ++c) s[cols[c]] = sp[c];
      double alpha = 1;
      for (std::size_t j = 0; j < n; ++j)
        if (passive[j] && s[j] <= 0) alpha = std::min(alpha, x[j] / (x[j] - s[j]));
      for (std::size_t j = 0; j < n; ++j) x[j] += alpha * (s[j] - x[j]);
      if (alpha >= 1) break;
      for (std::size_t j = 0; j < n; ++j)
        if (passive[j] && x[j] <= kTolerance) {
          passive[j] = false;
          x[j] = 0;
        }
    }
  }
  return x;
}

std::string toml_value(const dsm::SystemConfig& config, const std::string& key) {
  const toml::table t = toml::parse(dsm::to_toml(config));
  const auto node = t.at_path(key);
  if (!node.is_string()) throw std::logic_error(fmt::format("fit: the configuration has no key {}", key));
  return *node.value<std::string>();
}

}  // namespace

std::vector<FitParameter> software_dsm_parameters() {
  return {
      {"message software cost (send = receive)", {"pp.send_overhead", "pp.receive_overhead"}, false},
      {"interrupt (a message's arrival)", {"pp.interrupt_overhead"}, false},
      {"network latency per link", {"network.link_latency"}, false},
      {"network cost per byte", {"network.link_bandwidth"}, true},
      {"access fault trap", {"dsm.fault_trap"}, false},
      {"protocol handler", {"dsm.protocol_handler"}, false},
      // The bus with it: a copy goes at the slower of the two (no CP shares the bus here).
      {"memory copy per byte (twins)", {"pp.copy_bandwidth", "memory.bus_bandwidth"}, true},
      {"diff scan per word", {"dsm.diff_scan_per_word"}, false},
      {"diff cost per changed word", {"dsm.diff_encode_per_word"}, false},
      {"diff cost per run", {"dsm.diff_per_run"}, false},
  };
}

std::vector<FitParameter> real_node_parameters() {
  std::vector<FitParameter> out = software_dsm_parameters();
  // A real node's program hands a fault to its agent as it hands a Tmk call: one hand-off cost.
  for (FitParameter& p : out)
    if (p.keys == std::vector<std::string>{"dsm.protocol_handler"}) {
      p.name = "hand-off to the server (a Tmk call, a fault)";
      p.keys.emplace_back("dsm.fault_handoff");
    }
  // A diff applied by the host's memcpy-speed loop, not 1994's 20 ns a word: a whole-page diff's
  // miss against a page's tells it (the page is copied in without a diff).
  out.emplace_back(FitParameter{"diff apply per word", {"dsm.diff_apply_per_word"}, false});
  out.push_back({"server's wait for a computing program's core", {"pp.busy_handler_delay"}, false});
  out.push_back({"the same after a quiet stretch", {"pp.busy_handler_delay_quiet"}, false});
  return out;
}

bool is_check_only(const std::string& operation) {
  return operation == "page-miss" || operation == "diff-miss-crossed" || operation == "lock-burst";
}

std::vector<FitParameter> period_preset_parameters() {
  return {
      {"interrupt (a message's arrival)", {"pp.interrupt_overhead"}, false},
      {"memory copy per byte (twins)", {"pp.copy_bandwidth"}, true},
      {"message cost per byte, each end", {"pp.message_per_byte"}, false},
      {"protocol handler", {"dsm.protocol_handler"}, false},
      {"diff scan per word", {"dsm.diff_scan_per_word"}, false},
      {"diff cost per changed word", {"dsm.diff_encode_per_word"}, false},
      {"diff cost per run", {"dsm.diff_per_run"}, false},
  };
}

CostModel raw_costs(int nodes) {
  return [nodes](const dsm::SystemConfig& c) {
    std::map<std::string, double> out;
    for (const auto& cost : run::measure_raw_basic_costs(c, nodes)) out[cost.operation] = cost.microseconds;
    return out;
  };
}

CostModel published_costs() {
  return [](const dsm::SystemConfig& c) {
    std::map<std::string, double> out;
    for (const auto& cost : run::measure_basic_costs(c)) out[cost.operation] = cost.microseconds;
    return out;
  };
}

double parameter_value(const dsm::SystemConfig& config, const FitParameter& p) {
  const std::string text = toml_value(config, p.keys.front());
  if (p.per_byte) return 1e9 / emu::parse_bandwidth(text);
  return static_cast<double>(emu::to_ps(emu::parse_duration(text))) * 1e-6;
}

void set_parameter(dsm::SystemConfig& config, const FitParameter& p, double value) {
  const std::string text = p.per_byte ? fmt::format("{:.6g} MB/s", value > 0 ? 1e3 / value : 1e9)
                                      : fmt::format("{:.6g} ns", std::max(0.0, value) * 1e3);
  for (const std::string& key : p.keys) dsm::apply_override(config, fmt::format("{}={}", key, text));
}

FitOutcome fit_costs(const dsm::SystemConfig& base, const CostModel& model,
                     const std::map<std::string, double>& targets, std::span<const FitParameter> parameters) {
  const std::size_t n = parameters.size();
  std::vector<double> start(n);
  for (std::size_t j = 0; j < n; ++j) start[j] = parameter_value(base, parameters[j]);
  const auto config_of = [&](const std::vector<double>& x) {
    dsm::SystemConfig c = base;
    for (std::size_t j = 0; j < n; ++j) set_parameter(c, parameters[j], x[j]);
    return c;
  };
  std::vector<double> x = start;
  for (int round = 0; round < 6; ++round) {
    const std::map<std::string, double> at = model(config_of(x));
    Linear l;
    for (const auto& [op, target] : targets) {
      const auto it = at.find(op);
      if (it == at.end() || !(target > 0)) continue;
      std::vector<double> row(n, 0);
      l.a.push_back(row);
      l.b.push_back((target - it->second) / target);
    }
    for (std::size_t j = 0; j < n; ++j) {
      std::vector<double> moved = x;
      const double step = std::max(0.1 * std::abs(x[j]), parameters[j].per_byte ? 0.05 : 0.5);
      moved[j] += step;
      const std::map<std::string, double> there = model(config_of(moved));
      std::size_t row = 0;
      for (const auto& [op, target] : targets) {
        const auto it = at.find(op);
        if (it == at.end() || !(target > 0)) continue;
        l.a[row][j] = (there.at(op) - it->second) / step / target;
        ++row;
      }
    }
    // In deltas from x: A d = b. A light pull toward the start keeps what no target sees.
    constexpr double kPull = 1e-3;
    for (std::size_t j = 0; j < n; ++j) {
      std::vector<double> row(n, 0);
      const double scale = std::max(std::abs(start[j]), parameters[j].per_byte ? 0.05 : 0.5);
      row[j] = kPull / scale;
      l.a.push_back(row);
      l.b.push_back(kPull * (start[j] - x[j]) / scale);
    }
    // Solve for y = x + d >= 0: A y = b + A x.
    for (std::size_t i = 0; i < l.b.size(); ++i)
      for (std::size_t k = 0; k < n; ++k) l.b[i] += l.a[i][k] * x[k];
    x = nonnegative_least_squares(l, n);
  }
  FitOutcome out;
  out.config = config_of(x);
  out.values = x;
  out.reproduced = model(out.config);
  for (const auto& [op, us] : out.reproduced)
    if (const auto it = targets.find(op); it != targets.end() && it->second > 0)
      out.worst_error = std::max(out.worst_error, std::abs(us / it->second - 1));
  return out;
}

}  // namespace ncp2::validation
