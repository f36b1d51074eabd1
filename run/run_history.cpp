#include "run/run_history.hpp"
#include "run/content_hash.hpp"
#include "run/workload_names.hpp"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <system_error>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace ncp2::run {

std::string history_key(std::string_view workload, const Params& params, std::uint64_t seed,
                        const dsm::SystemConfig& config) {
  dsm::SystemConfig without_nodes = config;
  without_nodes.machine.nodes = 1;
  const std::string text =
      fmt::format("{}\n{}\n{}\n{}", workload, params.describe(), seed, dsm::to_toml(without_nodes));
  return fmt::format("{}-{:016x}", workload, content_hash(text));
}

std::optional<std::filesystem::path> RunHistory::default_path() {
  if (const char* explicit_path = std::getenv("NCP2_HISTORY")) {
    if (*explicit_path == '\0') return std::nullopt;
    return std::filesystem::path(explicit_path);
  }
  if (const char* cache = std::getenv("XDG_CACHE_HOME"); cache && *cache)
    return std::filesystem::path(cache) / "ncp2" / "history.jsonl";
  if (const char* home = std::getenv("HOME"); home && *home)
    return std::filesystem::path(home) / ".cache" / "ncp2" / "history.jsonl";
  return std::nullopt;
}

RunHistory RunHistory::from_environment() {
  const char* explicit_path = std::getenv("NCP2_HISTORY");
  return RunHistory(default_path(), explicit_path == nullptr);
}

std::vector<HistoryEntry> RunHistory::entries(std::string_view key) const {
  std::vector<HistoryEntry> found;
  if (!file_) return found;
  std::ifstream in(*file_);
  std::string line;
  while (std::getline(in, line)) {
    const nlohmann::json j = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (!j.is_object() || !j.contains("key") || !j["key"].is_string() || j["key"].get<std::string>() != key)
      continue;
    try {
      HistoryEntry e;
      e.key = j.at("key").get<std::string>();
      e.nodes = j.at("nodes").get<int>();
      e.virtual_ps = j.at("virtual_ps").get<std::int64_t>();
      e.barrier_episodes = j.at("barrier_episodes").get<std::uint64_t>();
      e.events = j.at("events").get<std::uint64_t>();
      e.wall_seconds = j.at("wall_seconds").get<double>();
      if (e.virtual_ps > 0) found.push_back(std::move(e));
    } catch (const nlohmann::json::exception&) {
      continue;  // a line from another version, or damaged: ignore it
    }
  }
  return found;
}

std::optional<HistoryEntry> RunHistory::latest(const std::vector<HistoryEntry>& entries, int nodes) {
  const auto it = std::find_if(entries.rbegin(), entries.rend(),
                               [nodes](const HistoryEntry& e) { return e.nodes == nodes; });
  if (it == entries.rend()) return std::nullopt;
  return *it;
}

bool RunHistory::record(const HistoryEntry& entry, std::string* why_not) const {
  if (!file_) return false;
  std::error_code ec;
  if (file_->has_parent_path() && !std::filesystem::is_directory(file_->parent_path(), ec)) {
    if (!create_directory_) {
      if (why_not)
        *why_not = fmt::format(
            "NCP2_HISTORY is {}, but directory {} does not exist (create it, or set NCP2_HISTORY= for no "
            "history)",
            file_->string(), file_->parent_path().string());
      return false;
    }
    std::filesystem::create_directories(file_->parent_path(), ec);
  }
  std::ofstream out(*file_, std::ios::app);
  if (!out) {
    if (why_not) *why_not = fmt::format("cannot append to {}", file_->string());
    return false;
  }
  const nlohmann::json j = {{"key", entry.key},
                            {"nodes", entry.nodes},
                            {"virtual_ps", entry.virtual_ps},
                            {"barrier_episodes", entry.barrier_episodes},
                            {"events", entry.events},
                            {"wall_seconds", entry.wall_seconds}};
  out << j.dump() << '\n';  // one write of a short line: concurrent runs do not interleave
  out.flush();
  if (!out && why_not) *why_not = fmt::format("cannot append to {}", file_->string());
  return static_cast<bool>(out);
}

}  // namespace ncp2::run
