#pragma once
// A node's protocol counts, like TreadMarks' Tmk_stat, kept by the protocol core itself: the
// emulated and the real run of a program count the same events the same way, so their counts can
// be compared one for one (tests/protocol). Messages and bytes are the transports' (dsm::NodeStats,
// the real agents' own counts); these are what the protocol decided.
#include <array>
#include <cstdint>
#include <string_view>

namespace ncp2::lrc {

struct Counters {
  std::uint64_t page_faults = 0;    // accesses to a page without access (its fetch or its diffs)
  std::uint64_t page_requests = 0;  // pages fetched from their home
  std::uint64_t pages_served = 0;   // page requests answered (as the home)
  std::uint64_t diff_requests = 0;  // requests sent, one per writer of a page
  std::uint64_t diff_replies = 0;   // diff requests answered
  std::uint64_t diff_bytes = 0;     // the diffs sent in those replies (word runs: Diff::modeled_bytes)
  std::uint64_t twins = 0;
  std::uint64_t diffs_created = 0;  // one per page written in a closed interval
  std::uint64_t diffs_applied = 0;
  std::uint64_t intervals = 0;  // own intervals closed (each with its write notices)
  std::uint64_t lock_acquires = 0;
  std::uint64_t local_lock_acquires = 0;  // acquired without messages
  std::uint64_t lock_requests = 0;        // requests sent to a lock's manager
  std::uint64_t lock_forwards = 0;        // requests forwarded as a lock's manager (its own included)
  std::uint64_t lock_grants = 0;          // grants this node sent
  std::uint64_t barriers = 0;             // episodes completed by this node
  std::uint64_t write_notices = 0;        // received and applied
  std::uint64_t gc_runs = 0;
};

struct CounterInfo {
  std::string_view name;  // the `protocol_counts` table's and the statistics JSON's
  std::uint64_t Counters::*member;
  std::string_view meaning;
};

// Every counter, in the order reports print them.
inline constexpr std::array<CounterInfo, 18> kCounterTable{{
    {"page_faults", &Counters::page_faults, "accesses to a page without access"},
    {"page_requests", &Counters::page_requests, "pages fetched from their home"},
    {"pages_served", &Counters::pages_served, "page requests answered as the home"},
    {"diff_requests", &Counters::diff_requests, "diff requests sent (one per writer of a page)"},
    {"diff_replies", &Counters::diff_replies, "diff requests answered"},
    {"diff_bytes", &Counters::diff_bytes, "bytes of the diffs sent (word runs)"},
    {"twins", &Counters::twins, "twins made (first writes of a page in an interval)"},
    {"diffs_created", &Counters::diffs_created, "diffs made (one per page written in an interval)"},
    {"diffs_applied", &Counters::diffs_applied, "diffs applied"},
    {"intervals", &Counters::intervals, "own intervals closed with write notices"},
    {"lock_acquires", &Counters::lock_acquires, "lock acquires"},
    {"local_lock_acquires", &Counters::local_lock_acquires, "lock acquires without messages"},
    {"lock_requests", &Counters::lock_requests, "lock requests sent to the lock's manager"},
    {"lock_forwards", &Counters::lock_forwards, "lock requests forwarded as the lock's manager"},
    {"lock_grants", &Counters::lock_grants, "lock grants sent"},
    {"barriers", &Counters::barriers, "barrier episodes completed"},
    {"write_notices", &Counters::write_notices, "write notices received and applied"},
    {"gc_runs", &Counters::gc_runs, "garbage collections"},
}};

inline Counters& operator+=(Counters& a, const Counters& b) {
  for (const CounterInfo& c : kCounterTable) a.*c.member += b.*c.member;
  return a;
}

}  // namespace ncp2::lrc
