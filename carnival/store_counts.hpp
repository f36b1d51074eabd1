#pragma once
// The `protocol_counts` table (schema 5, docs/schema.md): every node's protocol counts, the
// protocol core's (lrc/counters.hpp), for emulated and real runs alike.
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "carnival/model.hpp"
#include "lrc/counters.hpp"

namespace ncp2::carnival {

namespace sql {
class Db;
}  // namespace sql

// The rows of one node's counts, in lrc::kCounterTable's order.
void append_protocol_counts(std::vector<ProtocolCount>& rows, int node, const lrc::Counters& counts);

void write_protocol_counts(sql::Db& db, std::int64_t run_id, std::span<const ProtocolCount> rows);
// None for stores older than schema 5. Ordered by node, then by the table's order.
[[nodiscard]] std::vector<ProtocolCount> read_protocol_counts(const sql::Db& db, std::int64_t run_id);

}  // namespace ncp2::carnival
