#include "cli/race_output.hpp"

#include <algorithm>
#include <cstdio>

#include <fmt/format.h>

#include "carnival/report.hpp"
#include "carnival/scope_sites.hpp"

namespace ncp2::cli {

namespace {

constexpr std::size_t kShown = 10;

// The scope's name from the process's registry (built-in scopes and a program's functions).
std::string scope_name(std::uint32_t id) {
  const auto sites = carnival::scope_sites();
  if (id == 0 || id > sites.size()) return {};
  return sites[id - 1]->name;
}

}  // namespace

void print_races(const run::RunOutcome& o, const std::string& db) {
  if (o.races.empty()) {
    fmt::print("races     none found (--detect-races)\n");
    return;
  }
  fmt::print("races     {} data race{} ({} pair{} of intervals)\n", o.races.size(),
             o.races.size() == 1 ? "" : "s", o.race_pairs, o.race_pairs == 1 ? "" : "s");
  const std::size_t shown = std::min(kShown, o.races.size());
  for (std::size_t i = 0; i < shown; ++i) {
    const carnival::RaceRow& r = o.races[i];
    fmt::print(stderr, "ncp2: data race {} on {}:\n  {}\n  {}\n  unordered by any lock or barrier{}\n", r.id,
               carnival::describe_race_place(r),
               carnival::describe_race_access(r.first, scope_name(r.first.scope)),
               carnival::describe_race_access(r.second, scope_name(r.second.scope)),
               r.occurrences > 1 ? fmt::format(", {} times", r.occurrences) : std::string());
  }
  if (shown < o.races.size())
    fmt::print(stderr, "ncp2: {} more data races {}\n", o.races.size() - shown,
               db.empty() ? std::string("(add --db FILE to keep them all)")
                          : fmt::format("in {} (ncp2 report --view races {})", db, db));
}

}  // namespace ncp2::cli
