// `ncp2 validate`: the runs, and the comparison as text and JSON (validation/validate.hpp).
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <utility>

#include <fmt/format.h>

#include "carnival/run_reader.hpp"
#include "real_machine/subprocess.hpp"
#include "validation/validate.hpp"

namespace ncp2::validation {

namespace {

std::string error_text(const Compared& c) {
  const auto e = c.error_pct();
  return e ? fmt::format("{:+.1f} %", *e) : std::string("-");
}

void table(std::string& out, const char* title, const std::vector<Compared>& rows, std::size_t limit) {
  out += fmt::format("\n{:<44} {:>12} {:>12} {:>9}\n", title, "measured s", "predicted s", "error");
  for (std::size_t i = 0; i < rows.size() && i < limit; ++i)
    out += fmt::format("{:<44} {:>12.6f} {:>12.6f} {:>9}\n", rows[i].name.substr(0, 44), rows[i].measured_s,
                       rows[i].predicted_s, error_text(rows[i]));
  if (rows.size() > limit) out += fmt::format("({} more)\n", rows.size() - limit);
}

nlohmann::json rows_json(const std::vector<Compared>& rows) {
  nlohmann::json out = nlohmann::json::array();
  for (const Compared& c : rows) {
    nlohmann::json r = {{"name", c.name}, {"measured_s", c.measured_s}, {"predicted_s", c.predicted_s}};
    r["error_pct"] = c.error_pct() ? nlohmann::json(*c.error_pct()) : nlohmann::json(nullptr);
    out.push_back(std::move(r));
  }
  return out;
}

// `ncp2 run` of the program, as a child, into `db`.
void run_into(const ValidateOptions& o, const std::string& db, bool real) {
  std::vector<std::string> argv{real::executable_next_to_us("ncp2"),
                                "run",
                                o.program,
                                "--nodes",
                                std::to_string(o.nodes),
                                "--db",
                                db,
                                "--force",
                                "--no-history"};
  if (!o.preset.empty()) argv.insert(argv.end(), {"--config", o.preset});
  if (real) {
    argv.insert(argv.end(), {"--machine", "real"});
    if (!o.hostfile.empty()) argv.insert(argv.end(), {"--hostfile", o.hostfile});
    for (const std::string& a : o.mpirun_args) argv.push_back("--mpirun-args=" + a);
  } else {
    // Scale 1: the host's computation at the host's own speed (not the preset's period clock).
    // Processes, as the real run's nodes are: the same executable at the same addresses times the
    // program's computation as it runs; fiber copies, their blocks elsewhere, timed water's and
    // bfs's 17 % faster (bench/runner-computation, docs/validation.md).
    argv.insert(argv.end(),
                {"--time-model", "measured", "--scale", "1", "--runner", "process", "--progress", "never"});
  }
  argv.emplace_back("--");
  argv.insert(argv.end(), o.args.begin(), o.args.end());
  const real::CommandResult r = real::run_command(argv);
  if (r.exit_code != 0)
    throw std::runtime_error(fmt::format("the {} run failed (ncp2 run exited {}):\n{}",
                                         real ? "real" : "emulated", r.exit_code,
                                         real::last_lines(r.output, 15)));
}

// One run of either kind into real-K.db or emulated-K.db, read back, its time said.
carnival::RunData run_one(const ValidateOptions& o, bool real, int k) {
  const char* kind = real ? "real" : "emulated";
  const std::string db = fmt::format("{}/{}-{}.db", o.out_dir, kind, k);
  run_into(o, db, real);
  carnival::RunData run = carnival::read_run(db);
  if (o.progress)
    o.progress(fmt::format("{} run {}/{}: {:.6f} s", kind, k, real ? o.repeat : o.predictions,
                           seconds(run.run.virtual_time_ps)));
  return run;
}

// The real runs and the emulated ones, taken in turn (real 1, emulated 1, real 2, ...): the
// emulated runs time the program's computation on this host, so a stretch of minutes in which the
// host runs slower falls on both sides alike, not on one side's runs alone (a slowing of the
// emulated side alone it does not mend: sor's, in issue 43's sixth session, was its write faults
// sent one by one to the emulator, mended by taking them at once).
std::pair<std::vector<carnival::RunData>, std::vector<carnival::RunData>> runs_in_turn(
    const ValidateOptions& o) {
  std::vector<carnival::RunData> measured, predicted;
  for (int k = 1; k <= std::max(o.repeat, o.predictions); ++k) {
    if (k <= o.repeat) measured.push_back(run_one(o, true, k));
    if (k <= o.predictions) predicted.push_back(run_one(o, false, k));
  }
  return {std::move(measured), std::move(predicted)};
}

}  // namespace

std::string validation_text(const Validation& v) {
  std::string out = fmt::format("program   {}, {} node{}\n", v.program, v.nodes, v.nodes == 1 ? "" : "s");
  if (v.calibration) {
    const UsedCalibration& c = *v.calibration;
    out += fmt::format("calibration {}, made {} on {} ({} rounds on {} processes, took {:.1f} s; {})\n",
                       c.path, c.date, c.host, c.rounds, c.nodes, c.took_s,
                       c.reused ? "kept from an earlier validation" : "made now");
  } else {
    out += fmt::format("preset    {}\n",
                       v.preset.empty() ? "the treadmarks machine's defaults (not calibrated)" : v.preset);
  }
  const auto runs = [](const std::vector<double>& times, int n, const char* kind, double spread) {
    const auto [lo, hi] = std::minmax_element(times.begin(), times.end());
    return fmt::format("median of {} {} run{}; spread {:.1f} %: {:.6f} .. {:.6f} s", n, kind,
                       n == 1 ? "" : "s", spread, *lo, *hi);
  };
  out += fmt::format("measured  {:.6f} s ({})\n", v.measured_s,
                     runs(v.measured_runs_s, v.repeat, "real", v.measured_spread_pct));
  out +=
      fmt::format("predicted {:.6f} s ({}; the host's computation timed: --time-model measured)\n",
                  v.predicted_s, runs(v.predicted_runs_s, v.predictions, "emulated", v.predicted_spread_pct));
  out += fmt::format("error     {:+.1f} %\n", v.error_pct());
  if (v.too_short)
    out += fmt::format(
        "note      too short to compare: its real runs spread {:.1f} %, more than the ±{:g} % error we would "
        "judge; their noise is about a fixed time per run, so an input that runs about {:g}x longer (>= "
        "{:.3g} "
        "s measured) would do\n",
        v.too_short->measured_spread_pct, v.too_short->goal_pct, v.too_short->factor,
        v.too_short->measured_s_at_least);
  for (const std::string& n : v.notes) out += "note      " + n + "\n";
  table(out, "time by category (summed over the nodes)", v.categories, 100);
  table(out, "protocol work by operation", v.protocol_work, 100);
  table(out, "wait parts (summed over the waits)", v.parts, 100);
  out += "not compared (a real run cannot observe them):\n";
  for (const std::string& n : v.not_compared) out += "  " + n + "\n";
  out += wait_stats_text(v.waits);
  table(out, "scopes (inclusive, summed over the nodes)", v.scopes, 12);
  table(out, "nodes (time to the exit)", v.nodes_time, 64);
  out += fmt::format("\n{:<44} {:>12} {:>12}\n", "protocol counts (all nodes)", "measured", "predicted");
  for (const auto& c : v.counts)
    out += fmt::format("{:<44} {:>12} {:>12}\n", c.name, c.measured, c.predicted);
  return out;
}

nlohmann::json validation_json(const Validation& v) {
  nlohmann::json counts = nlohmann::json::array();
  for (const auto& c : v.counts)
    counts.push_back({{"name", c.name}, {"measured", c.measured}, {"predicted", c.predicted}});
  nlohmann::json calibration = nullptr;
  if (v.calibration)
    calibration = {{"path", v.calibration->path},     {"record", v.calibration->record},
                   {"date", v.calibration->date},     {"host", v.calibration->host},
                   {"nodes", v.calibration->nodes},   {"rounds", v.calibration->rounds},
                   {"took_s", v.calibration->took_s}, {"reused", v.calibration->reused}};
  nlohmann::json short_run = nullptr;
  if (v.too_short)
    short_run = {{"measured_spread_pct", v.too_short->measured_spread_pct},
                 {"goal_pct", v.too_short->goal_pct},
                 {"factor", v.too_short->factor},
                 {"measured_s_at_least", v.too_short->measured_s_at_least}};
  return {{"program", v.program},
          {"nodes", v.nodes},
          {"repeat", v.repeat},
          {"predictions", v.predictions},
          {"measured_s", v.measured_s},
          {"measured_runs_s", v.measured_runs_s},
          {"measured_spread_pct", v.measured_spread_pct},
          {"predicted_s", v.predicted_s},
          {"predicted_runs_s", v.predicted_runs_s},
          {"predicted_spread_pct", v.predicted_spread_pct},
          {"error_pct", v.error_pct()},
          {"too_short", std::move(short_run)},
          {"categories", rows_json(v.categories)},
          {"parts", rows_json(v.parts)},
          {"waits_by_operation", wait_stats_json(v.waits)},
          {"protocol_work_by_operation", rows_json(v.protocol_work)},
          {"not_compared", v.not_compared},
          {"scopes", rows_json(v.scopes)},
          {"nodes_time", rows_json(v.nodes_time)},
          {"counts", std::move(counts)},
          {"notes", v.notes},
          {"preset", v.preset},
          {"calibration", std::move(calibration)}};
}

Validation validate(const ValidateOptions& options) {
  namespace fs = std::filesystem;
  fs::create_directories(options.out_dir);
  // The validation keeps the preset it used: a kept calibration is replaced when it is made again.
  ValidateOptions o = options;
  if (!o.preset.empty()) {
    o.preset = o.out_dir + "/preset.toml";
    if (fs::absolute(options.preset).lexically_normal() != fs::absolute(o.preset).lexically_normal())
      fs::copy_file(options.preset, o.preset, fs::copy_options::overwrite_existing);
  }
  const auto [measured, predicted] = runs_in_turn(o);
  Validation v = compare_runs(measured, predicted);
  v.preset = options.preset;
  v.calibration = options.calibration;
  std::ofstream(o.out_dir + "/comparison.txt") << validation_text(v);
  std::ofstream(o.out_dir + "/comparison.json") << validation_json(v).dump(2) << "\n";
  return v;
}

}  // namespace ncp2::validation
