// The calibration `ncp2 validate` makes once and keeps (validation/calibration_cache.hpp).
#include "validation/calibration_cache.hpp"

#include <unistd.h>

#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <variant>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "carnival/file_publish.hpp"
#include "carnival/utc_time.hpp"
#include "dsm/config.hpp"
#include "emulator/config_error.hpp"
#include "validation/calibrate_host.hpp"

namespace ncp2::validation {

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// What a kept calibration's record says (the JSON beside its preset).
struct Record {
  int format = 0;
  HostIdentity host;
  std::string build;
  std::string launch;
  std::string command;
  std::string date;
  std::string preset_hash;
  int nodes = 0;
  int rounds = 0;
  double took_s = 0;
};

// How the real processes are started: a calibration made with another hostfile or other mpirun
// arguments measured other machines or another placement.
std::string launch_identity(const CalibrateOptions& o) {
  std::string out = "local";
  if (!o.hostfile.empty()) {
    const auto hash = hash_file(o.hostfile);
    out = fmt::format("hostfile {} ({})", fs::absolute(o.hostfile).lexically_normal().string(),
                      hash ? fmt::format("{:016x}", *hash) : std::string("unreadable"));
  }
  for (const std::string& a : o.mpirun_args) out += " mpirun-args " + a;
  return out;
}

// The files of one kept calibration: "<host>-<N>n.toml" and ".json" (the host's name made safe).
std::string base_path(const CacheRequest& r) {
  std::string name = r.host.name;
  for (char& c : name)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '-' && c != '_') c = '_';
  return (fs::path(r.dir) / fmt::format("{}-{}n", name, r.calibrate.nodes)).string();
}

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

json record_json(const Record& r) {
  return {{"format", r.format},
          {"host", {{"name", r.host.name}, {"cpu_model", r.host.cpu_model}, {"cpus", r.host.cpus}}},
          {"build", r.build},
          {"launch", r.launch},
          {"command", r.command},
          {"date", r.date},
          {"preset_hash", r.preset_hash},
          {"nodes", r.nodes},
          {"rounds", r.rounds},
          {"took_s", r.took_s}};
}

// Each field present with its type; the first one that is not, named.
std::optional<std::string> read_fields(const json& j, Record& r) {
  const auto text = [&](const json& o, const char* key, std::string& out) -> std::optional<std::string> {
    if (!o.contains(key) || !o[key].is_string()) return fmt::format("'{}' is not a text", key);
    out = o[key].get<std::string>();
    return std::nullopt;
  };
  const auto whole = [&](const json& o, const char* key, int& out) -> std::optional<std::string> {
    if (!o.contains(key) || !o[key].is_number_integer())
      return fmt::format("'{}' is not a whole number", key);
    out = o[key].get<int>();
    return std::nullopt;
  };
  if (!j.contains("host") || !j["host"].is_object()) return std::string("'host' is not an object");
  const json& h = j["host"];
  for (auto problem :
       {text(h, "name", r.host.name), text(h, "cpu_model", r.host.cpu_model), whole(h, "cpus", r.host.cpus),
        text(j, "build", r.build), text(j, "launch", r.launch), text(j, "command", r.command),
        text(j, "date", r.date), text(j, "preset_hash", r.preset_hash), whole(j, "nodes", r.nodes),
        whole(j, "rounds", r.rounds)})
    if (problem) return problem;
  if (!j.contains("took_s") || !j["took_s"].is_number() || !(j["took_s"].get<double>() >= 0))
    return std::string("'took_s' is not a duration");
  r.took_s = j["took_s"].get<double>();
  return std::nullopt;
}

// The record, or what is wrong with it. A record of another format is returned with its format
// alone (it is stale, not broken: another version of ncp2 wrote it).
std::variant<Record, std::string> parse_record(const std::string& text) {
  const json j = json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object())
    return std::string("it is not a JSON object (damaged or truncated)");
  Record r;
  if (!j.contains("format") || !j["format"].is_number_integer()) return std::string("'format' is missing");
  r.format = j["format"].get<int>();
  if (r.format != kCalibrationCacheFormat) return r;
  if (auto problem = read_fields(j, r)) return *problem;
  return r;
}

// Why a well-formed record does not fit the request; empty: it does.
std::string stale_reason(const Record& r, const CacheRequest& q) {
  if (r.format != kCalibrationCacheFormat)
    return fmt::format("the kept one is of format {}, this ncp2 keeps format {}", r.format,
                       kCalibrationCacheFormat);
  if (r.host != q.host)
    return fmt::format("the kept one was made on another host ({}, {}, {} CPUs)", r.host.name,
                       r.host.cpu_model, r.host.cpus);
  if (r.build != q.build) return "the kept one was made by another build of ncp2";
  if (r.nodes != q.calibrate.nodes) return fmt::format("the kept one was made on {} nodes", r.nodes);
  if (r.launch != launch_identity(q.calibrate))
    return fmt::format("the kept one was started otherwise ({})", r.launch);
  if (r.rounds < q.calibrate.rounds)
    return fmt::format("the kept one has {} rounds, {} asked", r.rounds, q.calibrate.rounds);
  return "";
}

// What is kept for the request: a usable calibration, or why not (and whether it was unreadable).
struct Kept {
  std::optional<UsedCalibration> usable;
  std::string why_not;
  std::optional<double> took_s;  // an earlier calibration's duration, for the estimate
  int rounds = 0;
};

Kept look(const CacheRequest& q, const std::string& toml, const std::string& record, const CacheMessages& m) {
  Kept k;
  std::error_code ec;
  if (!fs::exists(record, ec)) {
    k.why_not = "none is kept for this host and node count";
    if (fs::exists(toml, ec))
      m.warn(
          fmt::format("the kept calibration {} has no record {} (removed?); it is not used", toml, record));
    return k;
  }
  const auto parsed = parse_record(slurp(record));
  if (const auto* problem = std::get_if<std::string>(&parsed)) {
    m.warn(
        fmt::format("the kept calibration's record {} cannot be read: {}; it is not used", record, *problem));
    k.why_not = "the kept one cannot be read";
    return k;
  }
  const auto& r = std::get<Record>(parsed);
  if (r.format == kCalibrationCacheFormat) {
    k.took_s = r.took_s;
    k.rounds = r.rounds;
  }
  if (k.why_not = stale_reason(r, q); !k.why_not.empty()) return k;
  std::string problem;
  if (!fs::exists(toml, ec))
    problem = "it is missing";
  else if (const auto bad = preset_problem(toml))
    problem = *bad;
  else if (fmt::format("{:016x}", hash_bytes(slurp(toml))) != r.preset_hash)
    problem = "it is not the preset its record describes (changed or truncated since it was made)";
  if (!problem.empty()) {
    m.warn(fmt::format("the kept calibration {} cannot be used: {}; it is not used", toml, problem));
    k.why_not = "the kept one cannot be read";
    return k;
  }
  k.usable = UsedCalibration{toml, record, r.date, r.host.name, r.nodes, r.rounds, r.took_s, true};
  return k;
}

UsedCalibration make(const CacheRequest& q, const Calibrator& calibrate, const CacheMessages& m,
                     const Kept& kept, const std::string& toml, const std::string& record) {
  const double about =
      calibration_estimate_s(q.calibrate.rounds, q.calibrate.nodes, kept.took_s, kept.rounds);
  m.say(
      fmt::format("calibration: {}; calibrating this host on {} real processes ({} rounds, about {} s{}), to "
                  "keep in {}",
                  kept.why_not, q.calibrate.nodes, q.calibrate.rounds,
                  about < 10 ? fmt::format("{:.1f}", about) : fmt::format("{:.0f}", about),
                  kept.took_s ? " as the last one took" : "", toml));
  const auto start = std::chrono::steady_clock::now();
  const std::string text = calibrate(q.calibrate);
  Record r;
  r.took_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  r.format = kCalibrationCacheFormat;
  r.host = q.host;
  r.build = q.build;
  r.launch = launch_identity(q.calibrate);
  r.command = calibrate_command_line(q.calibrate);
  r.date = carnival::utc_now_iso();
  r.preset_hash = fmt::format("{:016x}", hash_bytes(text));
  r.nodes = q.calibrate.nodes;
  r.rounds = q.calibrate.rounds;
  // The preset first: a record is only ever published beside the preset it describes.
  carnival::write_file_atomically(toml, [&](std::ostream& out) { out << text; });
  if (const auto problem = preset_problem(toml)) {
    std::error_code ec;
    fs::remove(toml, ec);
    throw std::runtime_error(fmt::format("the calibration made a preset that cannot be used: {}", *problem));
  }
  carnival::write_file_atomically(record, [&](std::ostream& out) { out << record_json(r).dump(2) << "\n"; });
  m.say(
      fmt::format("calibration: made {} in {:.1f} s (kept until the host or the build changes; "
                  "--recalibrate makes it again)",
                  toml, r.took_s));
  return {toml, record, r.date, r.host.name, r.nodes, r.rounds, r.took_s, false};
}

}  // namespace

std::string calibration_cache_dir() {
  const auto env = [](const char* name) {
    const char* v = std::getenv(name);
    return v == nullptr ? std::string() : std::string(v);
  };
  if (std::string dir = env("NCP2_CALIBRATION_CACHE"); !dir.empty()) return dir;
  // The XDG base directory rules: a relative XDG_CACHE_HOME is ignored.
  if (const std::string xdg = env("XDG_CACHE_HOME"); !xdg.empty() && xdg.front() == '/')
    return xdg + "/ncp2/calibrations";
  if (const std::string home = env("HOME"); !home.empty()) return home + "/.cache/ncp2/calibrations";
  throw std::runtime_error(
      "there is no place to keep this host's calibration: neither NCP2_CALIBRATION_CACHE, XDG_CACHE_HOME "
      "nor HOME is set (set one, or give --preset)");
}

std::optional<std::string> cache_dir_problem(const std::string& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return fmt::format("cannot create {}: {}", dir, ec.message());
  if (!fs::is_directory(dir, ec)) return fmt::format("{} is not a directory", dir);
  // A probe file rather than access(2): it also answers for root and read-only file systems.
  const std::string probe = (fs::path(dir) / fmt::format(".probe-{}", ::getpid())).string();
  std::ofstream out(probe);
  out << "probe\n";
  out.close();
  const bool written = static_cast<bool>(out);
  fs::remove(probe, ec);
  if (!written) return fmt::format("cannot write in {}", dir);
  return std::nullopt;
}

std::optional<std::string> preset_problem(const std::string& path) {
  try {
    dsm::SystemConfig config = dsm::default_config(emu::MachineKind::TreadMarks);
    dsm::apply_toml_file(config, path);
    dsm::validate(config);
  } catch (const emu::ConfigError& e) {
    return std::string(e.what());
  }
  return std::nullopt;
}

Calibrator host_calibrator() {
  return [](const CalibrateOptions& o) { return calibrate_this_host(o).toml; };
}

double calibration_estimate_s(int rounds, int nodes, std::optional<double> earlier_s, int earlier_rounds) {
  // Measured on a 2-core VM, 2 processes (1, 3, 9 and 31 rounds: 1.2, 1.1, 1.6, 3.4 s): building
  // the program and starting the run take about kFixed, each round adds kPerRound. On 3 nodes or
  // more the loaded run follows, its loaders' windows about kLoadedPerRound a round more (4 nodes,
  // 11 and 31 rounds: 7.8 and 15.5 s in all, issue 43's fifth session). What is measured changes
  // with the calibration, so an earlier calibration's own time, scaled, is preferred.
  constexpr double kFixed = 0.9;
  constexpr double kPerRound = 0.08;
  constexpr double kLoadedFixed = 2.5;
  constexpr double kLoadedPerRound = 0.3;
  const auto model = [&](int r) {
    return kFixed + (kPerRound * r) + (measures_load(nodes) ? kLoadedFixed + (kLoadedPerRound * r) : 0.0);
  };
  if (!earlier_s || earlier_rounds <= 0) return model(rounds);
  return *earlier_s * model(rounds) / model(earlier_rounds);
}

UsedCalibration cached_calibration(const CacheRequest& q, const Calibrator& calibrate,
                                   const CacheMessages& m) {
  const std::string base = base_path(q);
  const std::string toml = base + ".toml";
  const std::string record = base + ".json";
  Kept kept = look(q, toml, record, m);
  if (kept.usable && !q.recalibrate) {
    const UsedCalibration& u = *kept.usable;
    m.say(fmt::format("calibration: reused {}, made {} ({} rounds, took {:.1f} s)", u.path, u.date, u.rounds,
                      u.took_s));
    return u;
  }
  if (q.recalibrate) kept.why_not = "--recalibrate";
  return make(q, calibrate, m, kept, toml, record);
}

}  // namespace ncp2::validation
