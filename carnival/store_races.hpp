#pragma once
// The `races` table (schema 4, docs/schema.md) and the meta key `race_detection`.
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "carnival/model.hpp"

namespace ncp2::carnival {

namespace sql {
class Db;
}  // namespace sql

// Inserts the races of run `run_id` and records whether detection was on.
void write_races(sql::Db& db, std::int64_t run_id, bool checked, std::span<const RaceRow> races);

struct StoredRaces {
  bool checked = false;  // the run detected races (false for stores older than schema 4)
  std::vector<RaceRow> races;
};
// `path` names the file in messages about corrupt rows.
[[nodiscard]] StoredRaces read_races(const sql::Db& db, std::int64_t run_id, const std::string& path);

// "[3,0,2]" and back (throws StoreError on anything else).
[[nodiscard]] std::string vector_time_text(std::span<const std::uint32_t> vt);
[[nodiscard]] std::vector<std::uint32_t> parse_vector_time(const std::string& text, const std::string& path);

}  // namespace ncp2::carnival
