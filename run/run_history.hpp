#pragma once
// A small, per-user record of finished runs (JSON lines), so that `ncp2 run` can say how far a run
// has got (a previous run of the same thing took this much virtual time) and its speedup over the
// same workload on one node. Only deterministic runs are recorded: same key, same result.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "emulator/config.hpp"
#include "run/workload_names.hpp"
#include "workloads/workload.hpp"

namespace ncp2::run {

struct HistoryEntry {
  std::string key;  // history_key(): the run without its node count
  int nodes = 0;
  std::int64_t virtual_ps = 0;  // the timed region
  std::uint64_t barrier_episodes = 0;
  std::uint64_t events = 0;
  double wall_seconds = 0;
};

// Identifies a run up to its node count: workload, parameters, seed and the whole machine
// configuration except machine.nodes (a stable 64-bit FNV-1a hash, in hex, plus the name).
std::string history_key(std::string_view workload, const Params& params, std::uint64_t seed,
                        const dsm::SystemConfig& config);

class RunHistory {
 public:
  // $NCP2_HISTORY if set (empty: no history), else $XDG_CACHE_HOME/ncp2/history.jsonl, else
  // ~/.cache/ncp2/history.jsonl.
  static std::optional<std::filesystem::path> default_path();
  // The history at default_path(); only the cache location's directory is created on demand (a
  // directory a user named in NCP2_HISTORY must exist: a typo must not create directories).
  static RunHistory from_environment();

  explicit RunHistory(std::optional<std::filesystem::path> file, bool create_directory = true)
      : file_(std::move(file)), create_directory_(create_directory) {}
  [[nodiscard]] bool enabled() const { return file_.has_value(); }
  [[nodiscard]] const std::optional<std::filesystem::path>& file() const { return file_; }

  // Every entry with this key, in the order recorded (one read of the file). Lines that do not
  // parse are skipped.
  [[nodiscard]] std::vector<HistoryEntry> entries(std::string_view key) const;
  // The latest entry with this key and node count.
  [[nodiscard]] std::optional<HistoryEntry> find(std::string_view key, int nodes) const {
    return latest(entries(key), nodes);
  }
  // The latest of `entries` with this node count.
  static std::optional<HistoryEntry> latest(const std::vector<HistoryEntry>& entries, int nodes);
  // Appends one line (creating the directory when allowed). Returns false with a reason when it
  // cannot; a history that cannot be written never fails a run.
  bool record(const HistoryEntry& entry, std::string* why_not = nullptr) const;

 private:
  std::optional<std::filesystem::path> file_;
  bool create_directory_ = true;
};

}  // namespace ncp2::run
