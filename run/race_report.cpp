#include "run/race_report.hpp"
#include "run/workload_names.hpp"

#include <algorithm>

namespace ncp2::run {

namespace {

carnival::RaceAccess describe(const dsm::RaceDetector::Access& a, const Instance& instance) {
  carnival::RaceAccess out;
  out.node = emu::index(a.node);
  out.writes = a.writes;
  const Instance::SourcePlace place = instance.describe_access(a.site);
  out.file = place.file;
  out.line = place.line;
  out.scope = a.site.scope;
  out.interval = a.segment;
  out.vector_time = a.clock;
  return out;
}

}  // namespace

std::vector<carnival::RaceRow> collect_races(dsm::Runtime& runtime, const Instance& instance) {
  dsm::RaceDetector* detector = runtime.race_detector();
  if (!detector) return {};
  detector->finish();
  const auto page_size = static_cast<std::size_t>(runtime.config().memory.page_size);
  const auto& regions = runtime.regions();
  std::vector<carnival::RaceRow> rows;
  for (const auto& race : detector->races()) {
    carnival::RaceRow row;
    row.id = static_cast<std::uint32_t>(rows.size() + 1);
    const std::uint32_t page = raw(race.page);
    const auto region = std::find_if(regions.begin(), regions.end(), [page](const dsm::RegionInfo& r) {
      return page >= r.first_page && page < r.first_page + r.pages;
    });
    if (region != regions.end()) {
      const auto index = static_cast<std::uint32_t>(region - regions.begin());
      row.region = region->name;
      row.offset = std::uint64_t{page - region->first_page} * page_size + race.offset;
      row.address = instance.program_address(runtime, index, row.offset);
    } else {
      row.region = std::string(1, '?');  // not = "?": a false -Wrestrict of GCC 12 (bug 105329)
      row.offset = std::uint64_t{page} * page_size + race.offset;
    }
    row.occurrences = race.occurrences;
    row.first = describe(race.first, instance);
    row.second = describe(race.second, instance);
    rows.push_back(std::move(row));
  }
  return rows;
}

}  // namespace ncp2::run
