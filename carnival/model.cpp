#include "carnival/model.hpp"
#include <algorithm>

#include <map>
#include <tuple>

namespace ncp2::carnival {

std::string_view to_string(Category c) {
  switch (c) {
    case Category::Comp:
      return "Comp";
    case Category::Extra:
      return "Extra";
    case Category::Wait:
      return "Wait";
    case Category::Prste:
      return "Prste";
    case Category::CPComp:
      return "CPComp";
    case Category::CPWait:
      return "CPWait";
    case Category::CPIdle:
      return "CPIdle";
  }
  return "?";
}

std::optional<Category> category_from_string(std::string_view name) {
  for (std::size_t i = 0; i < kCategories; ++i)
    if (to_string(static_cast<Category>(i)) == name) return static_cast<Category>(i);
  return std::nullopt;
}

std::string_view to_string(WaitPart p) {
  switch (p) {
    case WaitPart::CPLWait:
      return "CPLWait";
    case WaitPart::CPLComp:
      return "CPLComp";
    case WaitPart::CPComm:
      return "CPComm";
    case WaitPart::CPRWait:
      return "CPRWait";
    case WaitPart::CPRComp:
      return "CPRComp";
    case WaitPart::PPRWait:
      return "PPRWait";
    case WaitPart::PPRComp:
      return "PPRComp";
    case WaitPart::PPLWait:
      return "PPLWait";
    case WaitPart::SyncDelay:
      return "SyncDelay";
  }
  return "?";
}

const std::vector<CategoryInfo>& category_catalogue() {
  // Okabe-Ito and Tol palettes: distinguishable with the common colour-vision deficiencies.
  static const std::vector<CategoryInfo> catalogue = {
      {"Comp", "PP", "#0072B2", "application computation on the main processor"},
      {"Extra", "PP", "#E69F00", "coherence work: time executing TreadMarks code"},
      {"Wait", "PP", "#D55E00", "waiting for requests to be answered or for other processors"},
      {"Prste", "PP", "#CC79A7",
       "servicing requests of remote nodes or of the local CP, entered by interrupt"},
      {"CPComp", "CP", "#009E73", "protocol controller executing commands from its queue"},
      {"CPWait", "CP", "#F0E442", "protocol controller waiting for its own PP"},
      {"CPIdle", "CP", "#BBBBBB", "protocol controller with no command to process"},
      {"CPLWait", "WAIT", "#88CCEE", "intervals 1 and 11: command waits in the local CP's queue"},
      {"CPLComp", "WAIT", "#44AA99",
       "intervals 2 and 12: the local CP executes (treadmarks: the local PP's protocol work)"},
      {"CPComm", "WAIT", "#117733", "intervals 3 and 10: transmission between the nodes"},
      {"CPRWait", "WAIT", "#DDCC77", "intervals 4 and 8: command waits in the remote CP's queue"},
      {"CPRComp", "WAIT", "#999933", "intervals 5 and 9: the remote CP executes"},
      {"PPRWait", "WAIT", "#CC6677", "interval 6: the interrupt reaches the remote PP"},
      {"PPRComp", "WAIT", "#882255", "interval 7: the remote PP's handler executes"},
      {"PPLWait", "WAIT", "#AA4499", "interval 13: the notification reaches the local PP, which resumes"},
      {"SyncDelay", "WAIT", "#332288",
       "waiting for another processor (the last arrival at a barrier, the lock holder)"},
  };
  return catalogue;
}

std::vector<WaitSummary> summarize(const std::vector<WaitRow>& waits) {
  std::map<std::tuple<int, std::uint32_t, std::string, std::string>, WaitSummary> by_key;
  for (const auto& w : waits) {
    auto& s = by_key[{w.node, w.scope, w.operation, w.kind}];
    s.node = w.node;
    s.scope = w.scope;
    s.operation = w.operation;
    s.kind = w.kind;
    ++s.count;
    s.total_ps += w.duration_ps;
    for (std::size_t i = 0; i < kWaitParts; ++i) s.parts[i] += w.parts[i];
  }
  std::vector<WaitSummary> out;
  out.reserve(by_key.size());
  for (auto& [key, s] : by_key) out.push_back(std::move(s));
  return out;
}

std::vector<CPWaitMapRow> cpwait_map(std::span<const WaitSummary> summary, int node) {
  std::map<std::tuple<std::uint32_t, std::string, std::string>, CPWaitMapRow> by_key;
  for (const auto& w : summary) {
    if (node >= 0 && w.node != node) continue;
    auto& r = by_key[{w.scope, w.kind, w.operation}];
    r.scope = w.scope;
    r.kind = w.kind;
    r.operation = w.operation;
    r.count += w.count;
    r.total_ps += w.total_ps;
    for (std::size_t i = 0; i < kWaitParts; ++i) r.parts[i] += w.parts[i];
  }
  std::vector<CPWaitMapRow> rows;
  rows.reserve(by_key.size());
  for (auto& [key, r] : by_key) rows.push_back(std::move(r));
  std::stable_sort(rows.begin(), rows.end(),
                   [](const CPWaitMapRow& a, const CPWaitMapRow& b) { return a.total_ps > b.total_ps; });
  return rows;
}

}  // namespace ncp2::carnival
