// The `protocol_counts` table (carnival/store_counts.hpp).
#include "carnival/store_counts.hpp"

#include <algorithm>

#include "carnival/sqlite.hpp"
#include "carnival/store_schema.hpp"

namespace ncp2::carnival {

void append_protocol_counts(std::vector<ProtocolCount>& rows, int node, const lrc::Counters& counts) {
  for (const lrc::CounterInfo& c : lrc::kCounterTable)
    rows.push_back({node, std::string(c.name), counts.*c.member});
}

void write_protocol_counts(sql::Db& db, std::int64_t run_id, std::span<const ProtocolCount> rows) {
  sql::Stmt s(db, "INSERT INTO protocol_counts(run_id, node, counter, value) VALUES (?1, ?2, ?3, ?4)");
  for (const ProtocolCount& r : rows) {
    s.bind(1, run_id);
    s.bind(2, r.node);
    s.bind(3, r.counter);
    s.bind(4, static_cast<std::int64_t>(r.value));
    s.run();
  }
}

std::vector<ProtocolCount> read_protocol_counts(const sql::Db& db, std::int64_t run_id) {
  std::vector<ProtocolCount> out;
  if (db.integer("PRAGMA user_version") < kProtocolCountsSinceVersion) return out;
  sql::Stmt s(db, "SELECT node, counter, value FROM protocol_counts WHERE run_id = ?1");
  s.bind(1, run_id);
  while (s.step()) out.push_back({static_cast<int>(s.i64(0)), s.str(1), s.u64(2)});
  // The table's order (a counter this version does not know comes last, by name).
  const auto rank = [](const std::string& name) {
    const auto it = std::find_if(lrc::kCounterTable.begin(), lrc::kCounterTable.end(),
                                 [&](const lrc::CounterInfo& c) { return c.name == name; });
    return static_cast<std::size_t>(it - lrc::kCounterTable.begin());
  };
  std::sort(out.begin(), out.end(), [&](const ProtocolCount& a, const ProtocolCount& b) {
    if (a.node != b.node) return a.node < b.node;
    const std::size_t ra = rank(a.counter);
    const std::size_t rb = rank(b.counter);
    return ra != rb ? ra < rb : a.counter < b.counter;
  });
  return out;
}

}  // namespace ncp2::carnival
