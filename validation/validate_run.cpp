// `ncp2 validate`: the runs, and the comparison as text and JSON (validation/validate.hpp).
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <stdexcept>

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
    argv.insert(argv.end(), {"--time-model", "measured", "--scale", "1", "--progress", "never"});
  }
  argv.emplace_back("--");
  argv.insert(argv.end(), o.args.begin(), o.args.end());
  const real::CommandResult r = real::run_command(argv);
  if (r.exit_code != 0)
    throw std::runtime_error(fmt::format("the {} run failed (ncp2 run exited {}):\n{}",
                                         real ? "real" : "emulated", r.exit_code,
                                         real::last_lines(r.output, 15)));
}

}  // namespace

std::string validation_text(const Validation& v) {
  std::string out = fmt::format("program   {}, {} node{}\n", v.program, v.nodes, v.nodes == 1 ? "" : "s");
  out += fmt::format("preset    {}\n",
                     v.preset.empty() ? "the treadmarks machine's defaults (not calibrated)" : v.preset);
  const auto [lo, hi] = std::minmax_element(v.measured_runs_s.begin(), v.measured_runs_s.end());
  out += fmt::format("measured  {:.6f} s (median of {} real run{}; spread {:.1f} %: {:.6f} .. {:.6f} s)\n",
                     v.measured_s, v.repeat, v.repeat == 1 ? "" : "s", v.measured_spread_pct, *lo, *hi);
  out += fmt::format("predicted {:.6f} s (emulated, the host's computation timed: --time-model measured)\n",
                     v.predicted_s);
  out += fmt::format("error     {:+.1f} %\n", v.error_pct());
  for (const std::string& n : v.notes) out += "note      " + n + "\n";
  table(out, "time by category (summed over the nodes)", v.categories, 100);
  table(out, "wait parts (summed over the waits)", v.parts, 100);
  out += "not compared (a real run cannot observe them):\n";
  for (const std::string& n : v.not_compared) out += "  " + n + "\n";
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
  return {{"program", v.program},
          {"nodes", v.nodes},
          {"repeat", v.repeat},
          {"measured_s", v.measured_s},
          {"measured_runs_s", v.measured_runs_s},
          {"measured_spread_pct", v.measured_spread_pct},
          {"predicted_s", v.predicted_s},
          {"error_pct", v.error_pct()},
          {"categories", rows_json(v.categories)},
          {"parts", rows_json(v.parts)},
          {"not_compared", v.not_compared},
          {"scopes", rows_json(v.scopes)},
          {"nodes_time", rows_json(v.nodes_time)},
          {"counts", std::move(counts)},
          {"notes", v.notes},
          {"preset", v.preset}};
}

Validation validate(const ValidateOptions& o) {
  namespace fs = std::filesystem;
  fs::create_directories(o.out_dir);
  std::vector<carnival::RunData> measured;
  for (int r = 1; r <= o.repeat; ++r) {
    const std::string db = fmt::format("{}/real-{}.db", o.out_dir, r);
    run_into(o, db, true);
    measured.push_back(carnival::read_run(db));
    if (o.progress)
      o.progress(
          fmt::format("real run {}/{}: {:.6f} s", r, o.repeat, seconds(measured.back().run.virtual_time_ps)));
  }
  const std::string emulated = o.out_dir + "/emulated.db";
  run_into(o, emulated, false);
  if (o.progress) o.progress("emulated run: done");
  Validation v = compare_runs(measured, carnival::read_run(emulated));
  v.preset = o.preset;
  std::ofstream(o.out_dir + "/comparison.txt") << validation_text(v);
  std::ofstream(o.out_dir + "/comparison.json") << validation_json(v).dump(2) << "\n";
  return v;
}

}  // namespace ncp2::validation
