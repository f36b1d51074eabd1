#include <gtest/gtest.h>

#include "carnival/scope.hpp"

namespace ncp2::carnival {
namespace {

TEST(Scope, EndsAtTheBraceClosingTheEnclosingBlock) {
  const std::string text =
      "void f() {\n"           // 1
      "  for (;;) {\n"         // 2
      "    SCOPE;  // }\n"     // 3: a brace in a comment does not count
      "    g(\"}\");\n"        // 4: nor in a string
      "    if (x) { y(); }\n"  // 5: a nested block is skipped
      "  }\n"                  // 6: the end of the loop's block
      "}\n";                   // 7
  EXPECT_EQ(scope_end_line(text, 3, 5), 6);
  EXPECT_EQ(scope_end_line(text, 2, 0), 6);  // column 0: the end of line 2, inside the loop's block
  EXPECT_EQ(scope_end_line(text, 1, 0), 7);
}

TEST(Scope, WithoutAnEnclosingBlockTheScopeIsItsLine) {
  EXPECT_EQ(scope_end_line("int x;\nSCOPE;\n", 2, 1), 2);
  EXPECT_EQ(scope_end_line("", 5, 1), 5);
}

TEST(Scope, BlockCommentsAndCharLiteralsAreSkipped) {
  const std::string text = "{\n /* { */ char c = '{';\n SCOPE;\n}\n";
  EXPECT_EQ(scope_end_line(text, 3, 2), 4);
}

TEST(Scope, SitesGetDistinctIdsAndRecordTheirLine) {
  static const ScopeSite a{"a", "block"};
  static const ScopeSite b{"b", "loop"};
  EXPECT_NE(a.id, b.id);
  EXPECT_GT(a.id, 0u);
  EXPECT_EQ(b.line, a.line + 1);
  EXPECT_STREQ(b.kind, "loop");
  const auto sites = scope_sites();
  ASSERT_GE(sites.size(), b.id);
  EXPECT_EQ(sites[b.id - 1], &b);
}

}  // namespace
}  // namespace ncp2::carnival
