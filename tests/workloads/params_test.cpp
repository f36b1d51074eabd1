// Parameters: presets, --param overrides, and the error messages for every mistake.
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "workloads/registry.hpp"

namespace ncp2::workloads {
namespace {

using Strings = std::vector<std::string>;

// The message of the WorkloadError `f` throws ("" when it does not throw).
template <class F>
std::string error_of(F f) {
  try {
    f();
  } catch (const WorkloadError& e) {
    return e.what();
  }
  return "";
}

TEST(Params, DefaultsThenPresetThenAssignments) {
  const Workload& w = find_workload("phases");
  EXPECT_EQ(w.defaults().integer("n"), 16384);
  const Params small = w.resolve("small", {});
  EXPECT_EQ(small.integer("n"), 2048);
  EXPECT_EQ(small.integer("cycles"), 40);  // not in the preset: the default
  const Params p = w.resolve("small", Strings{"n=100", "cycles=+7", "n=200"});
  EXPECT_EQ(p.integer("n"), 200);  // the last assignment wins
  EXPECT_EQ(p.integer("cycles"), 7);
  EXPECT_EQ(p.integer("phases"), 4);
  EXPECT_EQ(p.describe(), "cycles=7 n=200 phases=4");
}

TEST(Params, EveryTypeParses) {
  const Workload& w = find_workload("counter");
  const Params p = w.resolve("", Strings{"work_us=2.5", "sum_ids=no", "iterations=3", "lock=9"});
  EXPECT_DOUBLE_EQ(p.real("work_us"), 2.5);
  EXPECT_FALSE(p.flag("sum_ids"));
  EXPECT_EQ(p.integer("iterations"), 3);
  EXPECT_TRUE(w.resolve("", Strings{"sum_ids=TRUE"}).flag("sum_ids"));
  EXPECT_DOUBLE_EQ(w.resolve("", Strings{"work_us=1e1"}).real("work_us"), 10.0);
  EXPECT_EQ(error_of([&] { (void)p.real("iterations"); }),
            "parameter 'iterations' is of type int, read as real");
}

TEST(Params, ZeroSizeIsRejectedWithTheBound) {
  const Workload& w = find_workload("phases");
  EXPECT_EQ(error_of([&] { w.check(w.resolve("", Strings{"n=0"}), 4); }),
            "parameter 'n' must be at least 1, got 0");
  EXPECT_EQ(error_of([&] { w.check(w.resolve("", Strings{"phases=-3"}), 4); }),
            "parameter 'phases' must be at least 1, got -3");
  const Workload& c = find_workload("counter");
  EXPECT_EQ(error_of([&] { c.check(c.resolve("", Strings{"work_us=-0.5"}), 4); }),
            "parameter 'work_us' must be at least 0, got -0.5");
  EXPECT_EQ(error_of([&] { c.check(c.resolve("", Strings{"lock=1048576"}), 4); }),
            "parameter 'lock' must be at most 1048575, got 1048576");
}

TEST(Params, UnknownParameterGetsASuggestionAndTheList) {
  const Workload& w = find_workload("counter");
  EXPECT_EQ(error_of([&] { (void)w.resolve("", Strings{"itertions=5"}); }),
            "workload 'counter' has no parameter 'itertions'; did you mean 'iterations'? "
            "(parameters: iterations, work_us, lock, sum_ids)");
  // Nothing close: no suggestion, still the list.
  EXPECT_EQ(error_of([&] { (void)w.resolve("", Strings{"zzz=5"}); }),
            "workload 'counter' has no parameter 'zzz' (parameters: iterations, work_us, lock, sum_ids)");
  EXPECT_EQ(error_of([&] { (void)w.resolve("", Strings{"iterations"}); }),
            "--param expects NAME=VALUE, got 'iterations'");
  EXPECT_EQ(error_of([&] { (void)w.resolve("", Strings{"=3"}); }), "--param expects NAME=VALUE, got '=3'");
}

TEST(Params, WrongTypeNamesTheParameter) {
  const Workload& w = find_workload("counter");
  EXPECT_EQ(error_of([&] { (void)w.resolve("", Strings{"iterations=ten"}); }),
            "parameter 'iterations' of workload 'counter' expects an integer, got 'ten'");
  EXPECT_EQ(error_of([&] { (void)w.resolve("", Strings{"iterations=2.5"}); }),
            "parameter 'iterations' of workload 'counter' expects an integer, got '2.5'");
  EXPECT_EQ(error_of([&] { (void)w.resolve("", Strings{"iterations="}); }),
            "parameter 'iterations' of workload 'counter' expects an integer, got ''");
  EXPECT_EQ(error_of([&] { (void)w.resolve("", Strings{"work_us=fast"}); }),
            "parameter 'work_us' of workload 'counter' expects a real number, got 'fast'");
  EXPECT_EQ(error_of([&] { (void)w.resolve("", Strings{"work_us=inf"}); }),
            "parameter 'work_us' of workload 'counter' expects a real number, got 'inf'");
  EXPECT_EQ(error_of([&] { (void)w.resolve("", Strings{"sum_ids=2"}); }),
            "parameter 'sum_ids' of workload 'counter' expects true or false, got '2'");
}

TEST(Params, ImpossibleForTheNodeCount) {
  const Workload& phases = find_workload("phases");
  EXPECT_EQ(error_of([&] { phases.check(phases.resolve("", Strings{"n=4"}), 8); }),
            "phases needs at least one element per node: n=4 < nodes=8");
  EXPECT_EQ(error_of([&] { phases.check(phases.resolve("", Strings{"n=8"}), 8); }), "");
  const Workload& fs = find_workload("false-sharing");
  EXPECT_EQ(error_of([&] { fs.check(fs.resolve("", Strings{"n=2"}), 3); }),
            "false-sharing needs at least one element per node: n=2 < nodes=3");
  EXPECT_EQ(error_of([&] { fs.check(fs.defaults(), 0); }),
            "workload 'false-sharing' needs at least 1 node, got 0");
}

TEST(Params, UnknownPreset) {
  const Workload& w = find_workload("phases");
  EXPECT_EQ(error_of([&] { (void)w.resolve("huge", {}); }),
            "workload 'phases' has no preset 'huge' (presets: paper, small)");
}

TEST(Registry, FindsByNameOrListsTheWorkloads) {
  EXPECT_EQ(find_workload("false-sharing").name, "false-sharing");
  // The message lists every registered workload, in registry order.
  std::string list;
  for (const auto& w : all_workloads()) list += (list.empty() ? "" : ", ") + w.name;
  EXPECT_EQ(error_of([] { (void)find_workload("nosuch"); }),
            "unknown workload 'nosuch' (workloads: " + list + "; see ncp2 workloads)");
  EXPECT_EQ(
      error_of([] { (void)find_workload("counterr"); }),
      "unknown workload 'counterr'; did you mean 'counter'? (workloads: " + list + "; see ncp2 workloads)");
}

TEST(Registry, NamesAreUniqueAndDescribed) {
  std::set<std::string> names;
  for (const auto& w : all_workloads()) {
    EXPECT_TRUE(names.insert(w.name).second) << w.name;
    EXPECT_FALSE(w.description.empty());
    EXPECT_TRUE(w.make) << w.name;
    for (const auto& p : w.parameters) EXPECT_FALSE(p.description.empty()) << w.name << "." << p.name;
  }
}

TEST(EditDistance, SmallCases) {
  EXPECT_EQ(edit_distance("", ""), 0u);
  EXPECT_EQ(edit_distance("abc", ""), 3u);
  EXPECT_EQ(edit_distance("kitten", "sitting"), 3u);
  EXPECT_EQ(edit_distance("itertions", "iterations"), 1u);
  const std::vector<std::string> candidates{"n", "phases", "cycles"};
  EXPECT_EQ(closest("phase", candidates), "phases");
  EXPECT_EQ(closest("x", candidates), "");  // one edit, but a complete rewrite
  EXPECT_EQ(closest("cycels", candidates), "cycles");
}

}  // namespace
}  // namespace ncp2::workloads
