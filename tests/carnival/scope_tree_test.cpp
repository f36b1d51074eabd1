// The one scope tree (carnival/scope_tree.hpp) that `ncp2 report` and the GUI share.
#include <gtest/gtest.h>

#include "carnival/scope_tree.hpp"

namespace ncp2::carnival {
namespace {

Scope scope(std::uint32_t id, std::int64_t parent, const std::string& name, int begin = 0, int end = 0) {
  Scope s;
  s.id = id;
  s.parent = parent;
  s.name = name;
  s.kind = "block";
  s.file = begin > 0 ? "w.cpp" : "";
  s.begin_line = begin;
  s.end_line = end;
  return s;
}

ProfileCell cell(int node, std::uint32_t scope_id, Category c, std::int64_t ps) {
  return {node, scope_id, c, "none", ps, 1};
}

TEST(ScopeTree, InclusiveTimeSumsTheSubtreeAndChildrenGoHottestFirst) {
  const std::vector<Scope> scopes = {scope(0, -1, "program"), scope(1, 0, "cold"), scope(2, 0, "hot"),
                                     scope(3, 2, "inner")};
  ScopeTree tree(scopes, {});
  tree.accumulate(std::vector<ProfileCell>{cell(0, 1, Category::Comp, 10), cell(0, 2, Category::Comp, 5),
                                           cell(1, 3, Category::Wait, 30), cell(0, 0, Category::Extra, 1),
                                           cell(0, 3, Category::CPComp, 99)});
  EXPECT_EQ(tree.find(2)->exclusive[static_cast<std::size_t>(Category::Comp)], 5);
  EXPECT_EQ(pp_total(tree.find(2)->inclusive), 35);
  EXPECT_EQ(cp_total(tree.find(2)->inclusive), 99) << "CP time is kept, apart from PP time";
  EXPECT_EQ(pp_total(tree.find(0)->inclusive), 46);
  EXPECT_EQ(tree.total_pp_ps(), 46);
  EXPECT_EQ(tree.children(0), (std::vector<std::uint32_t>{2, 1}));
  EXPECT_EQ(tree.by_time(), (std::vector<std::uint32_t>{0, 2, 3, 1}));
  EXPECT_EQ(tree.find(3)->depth, 2);
}

TEST(ScopeTree, TheNodeFilterKeepsOneNodesTime) {
  const std::vector<Scope> scopes = {scope(0, -1, "program")};
  ScopeTree tree(scopes, {});
  tree.accumulate(std::vector<ProfileCell>{cell(0, 0, Category::Comp, 10), cell(1, 0, Category::Comp, 7)}, 1);
  EXPECT_EQ(tree.total_pp_ps(), 7);
}

TEST(ScopeTree, MentionedScopesHangUnderTheRootAndCyclesBecomeRoots) {
  const std::vector<Scope> scopes = {scope(0, -1, "program"), scope(5, 6, "a"), scope(6, 5, "b")};
  const std::vector<std::int64_t> mentioned = {9, -1, 0};
  const ScopeTree tree(scopes, mentioned);
  ASSERT_NE(tree.find(9), nullptr);
  EXPECT_EQ(tree.find(9)->scope.parent, 0);
  EXPECT_EQ(tree.name(9), "scope 9");
  EXPECT_EQ(tree.name(-1), "?");
  EXPECT_EQ(tree.name(42), "scope 42");
  std::size_t roots_on_cycle = 0;
  for (auto r : tree.roots()) roots_on_cycle += (r == 5 || r == 6) ? 1 : 0;
  EXPECT_EQ(roots_on_cycle, 1U) << "one scope of the cycle becomes a root, the other hangs under it";
  EXPECT_EQ(tree.nodes().size(), 4U);
}

TEST(ScopeTree, LocationAndLabelNameTheLines) {
  const std::vector<Scope> scopes = {scope(0, -1, "program", 1, 90), scope(1, 0, "one line", 7, 7),
                                     scope(2, 0, "nowhere")};
  const ScopeTree tree(scopes, {});
  EXPECT_EQ(tree.location(0), "w.cpp:1-90");
  EXPECT_EQ(tree.location(1), "w.cpp:7");
  EXPECT_EQ(tree.location(2), "");
  EXPECT_EQ(tree.label(0), "program (w.cpp:1-90)");
  EXPECT_EQ(tree.label(2), "nowhere");
}

}  // namespace
}  // namespace ncp2::carnival
