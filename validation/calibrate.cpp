// `ncp2 calibrate --machine real` (validation/calibrate.hpp).
#include "validation/calibrate.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <numeric>
#include <span>
#include <sstream>
#include <stdexcept>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "real_machine/subprocess.hpp"
#include "validation/programs.hpp"

namespace ncp2::validation {

namespace {

using real::CommandResult;
using real::executable_next_to_us;
using real::last_lines;
using real::run_command;

std::string build_program(const std::string& dir) {
  const std::string source = dir + "/basic_costs.c";
  std::string binary = dir + "/basic_costs";
  std::ofstream(source) << kBasicCostsProgram;
  const CommandResult built = run_command({executable_next_to_us("ncp2-cc"), "-O2", "-o", binary, source});
  if (built.exit_code != 0)
    throw std::runtime_error(fmt::format("building the basic-cost program with ncp2-cc failed:\n{}",
                                         last_lines(built.output, 12)));
  return binary;
}

}  // namespace

std::vector<MeasuredCost> parse_basic_costs(const std::string& output) {
  std::vector<MeasuredCost> out;
  std::map<std::string, std::vector<double>> rounds;
  std::istringstream in(output);
  for (std::string line; std::getline(in, line);) {
    if (const std::size_t at = line.find("basic-cost-rounds "); at != std::string::npos) {
      std::istringstream fields(line.substr(at + 18));
      std::string operation;
      fields >> operation;
      std::vector<double>& times = rounds[operation];
      for (double t = 0; fields >> t;) times.push_back(t);
      continue;
    }
    const std::size_t at = line.find("basic-cost ");
    if (at == std::string::npos) continue;
    std::istringstream fields(line.substr(at + 11));
    MeasuredCost m;
    if (fields >> m.operation >> m.median_us >> m.min_us >> m.max_us >> m.p90_us >> m.rounds &&
        m.rounds > 0 && m.min_us <= m.median_us && m.median_us <= m.p90_us && m.p90_us <= m.max_us)
      out.push_back(std::move(m));
  }
  // Each round's times only when they agree with their summary line (a cut line is left out).
  for (MeasuredCost& m : out)
    if (auto it = rounds.find(m.operation);
        it != rounds.end() && std::ssize(it->second) == m.rounds &&
        std::ranges::all_of(it->second, [&](double t) { return t >= m.min_us && t <= m.max_us; }))
      m.rounds_us = std::move(it->second);
  return out;
}

bool measures_load(int nodes) { return nodes >= 3; }

std::vector<MeasuredCost> measure_real_basic_costs(const CalibrateOptions& o, bool loaded) {
  const std::string program = build_program(o.work_dir);
  std::vector<std::string> argv{
      executable_next_to_us("ncp2"), "run",         program, "--machine", "real", "--nodes",
      std::to_string(o.nodes),       "--no-history"};
  if (!o.hostfile.empty()) argv.insert(argv.end(), {"--hostfile", o.hostfile});
  for (const std::string& a : o.mpirun_args) argv.push_back("--mpirun-args=" + a);
  argv.insert(argv.end(), {"--", std::to_string(o.rounds)});
  if (loaded) argv.emplace_back("loaded");
  const CommandResult r = run_command(argv);
  if (r.exit_code != 0)
    throw std::runtime_error(
        fmt::format("the basic-cost program{} failed on real processes (ncp2 run exited {}):\n{}",
                    loaded ? " (loaded)" : "", r.exit_code, last_lines(r.output, 15)));
  std::vector<MeasuredCost> measured = parse_basic_costs(r.output);
  if (measured.empty())
    throw std::runtime_error(
        fmt::format("the basic-cost program printed no costs:\n{}", last_lines(r.output, 15)));
  return measured;
}

namespace {

// The mean of the busy-request costs less the page miss: where the fit starts the server's waits.
double busy_wait_guess_us(const std::vector<MeasuredCost>& measured) {
  double page_miss = 0, sum = 0;
  int count = 0;
  for (const MeasuredCost& m : measured) {
    if (m.operation == "page-miss") page_miss = m.median_us;
    if (m.operation.starts_with("busy-request-")) {
      sum += m.median_us;
      ++count;
    }
  }
  return count == 0 ? 100.0 : std::max(sum / count - page_miss, 10.0);
}

}  // namespace

namespace {

// The N of a busy-request-Nms cost, 0 for any other operation.
int busy_spacing_ms(const std::string& operation) {
  int ms = 0;
  return std::sscanf(operation.c_str(), "busy-request-%dms", &ms) == 1 && ms > 0 ? ms : 0;
}

// `logs` split in two before index `split`: the squared distances of each to its group's mean,
// summed (how alike each group is), and the later group's mean less the earlier's.
struct LogSplit {
  double error = 0;
  double gap = 0;
};
LogSplit log_split(std::span<const double> logs, std::size_t split) {
  const std::span<const double> low = logs.first(split), high = logs.subspan(split);
  const double a = std::accumulate(low.begin(), low.end(), 0.0) / static_cast<double>(low.size());
  const double b = std::accumulate(high.begin(), high.end(), 0.0) / static_cast<double>(high.size());
  LogSplit out{0, b - a};
  for (double x : low) out.error += (x - a) * (x - a);
  for (double x : high) out.error += (x - b) * (x - b);
  return out;
}

}  // namespace

double busy_quiet_after_us(const std::vector<MeasuredCost>& measured) {
  double page_miss = 0;
  std::vector<std::pair<double, double>> waits;  // (spacing ms, the server's wait us), by spacing
  for (const MeasuredCost& m : measured) {
    if (m.operation == "page-miss") page_miss = m.median_us;
    if (const int ms = busy_spacing_ms(m.operation); ms > 0) waits.emplace_back(ms, m.median_us);
  }
  std::sort(waits.begin(), waits.end());
  if (waits.size() < 2) return 0;
  std::vector<double> logs;
  logs.reserve(waits.size());
  for (const auto& w : waits) logs.push_back(std::log(std::max(w.second - page_miss, 1.0)));
  // The split into shorter and longer spacings whose waits are each most alike (least squares on
  // the logarithms); kept only when the two groups' waits differ by more than 2x.
  std::size_t best = 0;
  double best_error = 0;
  for (std::size_t split = 1; split < logs.size(); ++split) {
    const LogSplit at = log_split(logs, split);
    if (std::abs(at.gap) > std::log(2.0) && (best == 0 || at.error < best_error)) {
      best = split;
      best_error = at.error;
    }
  }
  if (best == 0) return 0;
  return 1e3 * std::sqrt(waits[best - 1].first * waits[best].first);
}

double close_per_page_us(const std::vector<MeasuredCost>& measured, double per_write_notice_us) {
  constexpr double kFewPages = 8;
  constexpr double kManyPages = 520;  // validation/basic_costs.c's kCloseFew, kCloseMany
  double few = -1;
  double many = -1;
  for (const MeasuredCost& m : measured) {
    if (m.operation == "barrier-after-8-pages") few = m.median_us;
    if (m.operation == "barrier-after-520-pages") many = m.median_us;
  }
  if (few < 0 || many < 0) return 0;
  return std::max(0.0, (many - few) / (kManyPages - kFewPages) - per_write_notice_us);
}

bool is_busy_not_quiet(const std::string& operation, double quiet_after_us) {
  const int ms = busy_spacing_ms(operation);
  return ms > 0 && (quiet_after_us <= 0 || 1e3 * ms < quiet_after_us);
}

namespace {

double median_of(std::span<const double> sorted) { return sorted[sorted.size() / 2]; }

// Every round of the busy requests of the spacings before the quiet stretch, sorted.
std::vector<double> pooled_busy_rounds(const std::vector<MeasuredCost>& measured, double quiet_after_us) {
  std::vector<double> times;
  for (const MeasuredCost& m : measured)
    if (is_busy_not_quiet(m.operation, quiet_after_us))
      times.insert(times.end(), m.rounds_us.begin(), m.rounds_us.end());
  std::sort(times.begin(), times.end());
  return times;
}

// Where sorted `times` split into a short and a long group most alike each (least squares on the
// logarithms), kept when the groups' means differ by more than `ratio`x and each holds 2 or more
// (a lone outlier is not a mode); 0: none.
std::size_t two_mode_split(std::span<const double> times, double ratio) {
  std::vector<double> logs;
  logs.reserve(times.size());
  for (double t : times) logs.push_back(std::log(std::max(t, 1e-3)));
  std::size_t best = 0;
  LogSplit best_split;
  for (std::size_t split = 1; split < logs.size(); ++split)
    if (const LogSplit at = log_split(logs, split); best == 0 || at.error < best_split.error) {
      best = split;
      best_split = at;
    }
  const bool modes = best >= 2 && logs.size() - best >= 2 && best_split.gap > std::log(ratio);
  return modes ? best : 0;
}

}  // namespace

double busy_tick_us(const std::vector<MeasuredCost>& measured, double quiet_after_us) {
  const std::vector<double> times = pooled_busy_rounds(measured, quiet_after_us);
  const std::span<const double> slow = std::span<const double>(times).subspan(two_mode_split(times, 4.0));
  if (slow.empty()) return 0;
  return std::max(median_of(slow), 2 * median_of(slow) - slow.front());
}

BusyModes busy_modes(const std::vector<MeasuredCost>& measured, double quiet_after_us) {
  const std::vector<double> times = pooled_busy_rounds(measured, quiet_after_us);
  BusyModes modes;
  modes.rounds = static_cast<int>(times.size());
  const std::size_t split = two_mode_split(times, 4.0);
  if (split == 0) return modes;
  const std::span<const double> prompt(times.data(), split), slow(times.data() + split, times.size() - split);
  modes.prompt_share = static_cast<double>(prompt.size()) / static_cast<double>(times.size());
  modes.prompt_median_us = median_of(prompt);
  modes.slow_median_us = median_of(slow);
  modes.slow_min_us = slow.front();
  modes.slow_max_us = slow.back();
  return modes;
}

PromptOnset prompt_onset(const std::vector<MeasuredCost>& measured, double quiet_after_us,
                         const BusyModes& modes) {
  PromptOnset out{0, modes.prompt_share};
  if (!modes.found()) return out;
  struct Spacing {
    int ms = 0;
    int prompt = 0;  // rounds below the slow mode
    int rounds = 0;
  };
  std::vector<Spacing> spacings;
  for (const MeasuredCost& m : measured)
    if (is_busy_not_quiet(m.operation, quiet_after_us) && !m.rounds_us.empty())
      spacings.push_back({busy_spacing_ms(m.operation),
                          static_cast<int>(std::ranges::count_if(
                              m.rounds_us, [&](double t) { return t < modes.slow_min_us; })),
                          static_cast<int>(m.rounds_us.size())});
  std::ranges::sort(spacings, {}, &Spacing::ms);
  std::size_t none = 0;  // the spacings from the shortest on with no prompt round
  while (none < spacings.size() && spacings[none].prompt == 0) ++none;
  if (none == 0 || none == spacings.size()) return out;
  out.after_us = 1e3 * std::sqrt(static_cast<double>(spacings[none - 1].ms * spacings[none].ms));
  int prompt = 0, rounds = 0;
  for (std::size_t i = none; i < spacings.size(); ++i) {
    prompt += spacings[i].prompt;
    rounds += spacings[i].rounds;
  }
  out.share = static_cast<double>(prompt) / rounds;
  return out;
}

namespace {
void read_off(Calibration& c, int nodes);
}  // namespace

dsm::SystemConfig with_latency_share(dsm::SystemConfig config, double share) {
  const emu::Duration per_message =
      config.pp.send_overhead + config.pp.receive_overhead + config.pp.interrupt_overhead;
  const auto keep = [share](emu::Duration d) {
    return emu::Duration{std::llround(static_cast<double>(d.count()) * (1 - share))};
  };
  config.pp.send_overhead = keep(config.pp.send_overhead);
  config.pp.receive_overhead = keep(config.pp.receive_overhead);
  config.pp.interrupt_overhead = keep(config.pp.interrupt_overhead);
  // A message between two nodes of the calibration crosses two cables (node, switch, node).
  const emu::Duration moved =
      per_message - (config.pp.send_overhead + config.pp.receive_overhead + config.pp.interrupt_overhead);
  config.network.link_latency += moved / 2;
  return config;
}

double fit_latency_share(const Calibration& c, int nodes) {
  const auto crossed = std::find_if(c.measured.begin(), c.measured.end(),
                                    [](const MeasuredCost& m) { return m.operation == "diff-miss-crossed"; });
  if (crossed == c.measured.end() || !(crossed->median_us > 0)) return 0;
  double best = 0;
  double best_error = -1;
  for (int step = 0; step <= 10; ++step) {
    const double share = step / 10.0;
    const auto costs = raw_costs(nodes)(with_latency_share(c.fit.config, share));
    const auto it = costs.find("diff-miss-crossed");
    if (it == costs.end()) return 0;
    const double error = std::abs(it->second / crossed->median_us - 1);
    if (best_error < 0 || error < best_error) {
      best = share;
      best_error = error;
    }
  }
  return best;
}

Calibration fit_calibration(std::vector<MeasuredCost> measured, int nodes, std::string host, std::string date,
                            std::vector<MeasuredCost> loaded) {
  Calibration c;
  c.measured = std::move(measured);
  c.loaded = std::move(loaded);
  c.nodes = nodes;
  c.host = std::move(host);
  c.date = std::move(date);
  c.parameters = real_node_parameters();
  dsm::SystemConfig base = dsm::default_config(emu::MachineKind::TreadMarks);
  base.machine.nodes = nodes;
  c.quiet_after_us = busy_quiet_after_us(c.measured);
  dsm::apply_override(base, fmt::format("pp.busy_handler_quiet_after={:.6g} us", c.quiet_after_us));
  // The fit starts the waits near their size (the fit's pull toward its start is relative to it).
  const double wait = busy_wait_guess_us(c.measured);
  for (const char* key : {"pp.busy_handler_delay", "pp.busy_handler_delay_quiet"})
    dsm::apply_override(base, fmt::format("{}={:.6g} us", key, wait));
  // Two modes: the wait is fitted to the slow one, the prompt share set after the fit (the
  // emulated experiments then wait every time, as the slow rounds did).
  c.busy_modes = busy_modes(c.measured, c.quiet_after_us);
  std::map<std::string, double> median, low, high;
  for (const MeasuredCost& m : c.measured) {
    if (is_check_only(m.operation)) continue;
    const bool slow_mode = c.busy_modes.found() && is_busy_not_quiet(m.operation, c.quiet_after_us);
    median[m.operation] = slow_mode ? c.busy_modes.slow_median_us : m.median_us;
    low[m.operation] = slow_mode ? c.busy_modes.slow_min_us : m.min_us;
    high[m.operation] = slow_mode ? c.busy_modes.slow_max_us : m.max_us;
  }
  c.fit = fit_costs(base, raw_costs(nodes), median, c.parameters);
  c.low = fit_costs(base, raw_costs(nodes), low, c.parameters).values;
  c.high = fit_costs(base, raw_costs(nodes), high, c.parameters).values;
  c.prompt = prompt_onset(c.measured, c.quiet_after_us, c.busy_modes);
  c.fit.config.pp.busy_handler_prompt_share = c.prompt.share;
  dsm::apply_override(c.fit.config, fmt::format("pp.busy_handler_prompt_after={:.6g} us", c.prompt.after_us));
  c.targets = std::move(median);
  read_off(c, nodes);
  return c;
}

namespace {

// What the preset takes from the measurements without fitting, and what it then reproduces of the
// costs compared, not fitted.
void read_off(Calibration& c, int nodes) {
  // No other basic cost closes an interval that wrote pages.
  c.close_per_page_us =
      close_per_page_us(c.measured, static_cast<double>(emu::to_ps(c.fit.config.dsm.per_write_notice)) / 1e6);
  dsm::apply_override(c.fit.config, fmt::format("dsm.close_per_page={:.6g} us", c.close_per_page_us));
  // A real node's agent is a process beside its program: what it serves is the program's time in
  // whatever the program was doing, as a real run records it (profile only; docs/validation.md).
  dsm::apply_override(c.fit.config, "pp.separate_server=1");
  c.busy_tick_us = busy_tick_us(c.measured, c.quiet_after_us);
  dsm::apply_override(c.fit.config, fmt::format("pp.busy_handler_tick={:.6g} us", c.busy_tick_us));
  c.latency_share = fit_latency_share(c, nodes);
  c.fit.config = with_latency_share(c.fit.config, c.latency_share);
  for (auto& [operation, us] : raw_costs(nodes)(c.fit.config))
    if (is_check_only(operation)) c.fit.reproduced[operation] = us;
  // Last: the costs above are those beside idle nodes, which the fit and the read-offs split.
  std::map<std::string, double> loaded;
  for (const MeasuredCost& m : c.loaded) loaded[m.operation] = m.median_us;
  c.load = fit_load_factor(c.fit.config, c.parameters, raw_costs(nodes), loaded);
  c.fit.config = with_load_factor(c.fit.config, c.parameters, c.load.factor);
}

}  // namespace

bool fitted_to_slow_mode(const Calibration& c, const MeasuredCost& m) {
  return c.busy_modes.found() && is_busy_not_quiet(m.operation, c.quiet_after_us) &&
         !is_check_only(m.operation);
}

double fitted_target(const Calibration& c, const MeasuredCost& m) {
  const auto it = c.targets.find(m.operation);
  return it == c.targets.end() ? m.median_us : it->second;
}

std::string busy_modes_text(const BusyModes& modes) {
  if (!modes.found())
    return fmt::format("busy requests: one mode ({} rounds of the spacings before the quiet stretch)",
                       modes.rounds);
  return fmt::format(
      "busy requests: {:.0f} % of {} rounds served promptly (median {:.0f} us), the rest after a time slice "
      "(median {:.0f} us, {:.0f} .. {:.0f})",
      100 * modes.prompt_share, modes.rounds, modes.prompt_median_us, modes.slow_median_us, modes.slow_min_us,
      modes.slow_max_us);
}

}  // namespace ncp2::validation
