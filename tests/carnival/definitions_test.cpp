// The categories and wait parts are defined once (carnival/model.hpp kCategoryTable,
// carnival/wait_parts.hpp kWaitPartTable): everything that lists them follows the tables.
#include <set>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sqlite3.h>

#include "carnival/store.hpp"
#include "carnival/store_schema.hpp"
#include "fixture.hpp"
#include "temp_dir.hpp"

namespace ncp2::carnival {
namespace {

using ::testing::ElementsAreArray;
using ::testing::HasSubstr;

// The columns of `table` in a file written by the store, in table order.
std::vector<std::string> columns_of(const std::string& path, const std::string& table) {
  sqlite3* db = nullptr;
  EXPECT_EQ(sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  sqlite3_stmt* s = nullptr;
  EXPECT_EQ(
      sqlite3_prepare_v2(db, ("SELECT name FROM pragma_table_info('" + table + "') ORDER BY cid").c_str(), -1,
                         &s, nullptr),
      SQLITE_OK);
  std::vector<std::string> out;
  while (sqlite3_step(s) == SQLITE_ROW)
    out.emplace_back(reinterpret_cast<const char*>(sqlite3_column_text(s, 0)));
  sqlite3_finalize(s);
  sqlite3_close(db);
  return out;
}

std::vector<std::string> split_list(const std::string& list) {
  std::vector<std::string> out;
  std::size_t from = 0;
  while (from <= list.size()) {
    const std::size_t comma = list.find(", ", from);
    out.push_back(list.substr(from, comma == std::string::npos ? std::string::npos : comma - from));
    if (comma == std::string::npos) break;
    from = comma + 2;
  }
  return out;
}

class DefinitionsTest : public testing::TempDirTest {};

TEST_F(DefinitionsTest, EveryPartHasItsColumnInWaitsAndWaitSummaryInTableOrder) {
  write_run(path("run.db"), testing::make_fixture());
  std::vector<std::string> waits = columns_of(path("run.db"), "waits");
  waits.erase(waits.begin());  // run_id
  EXPECT_THAT(waits, ElementsAreArray(split_list(wait_row_columns())));
  std::vector<std::string> summary = columns_of(path("run.db"), "wait_summary");
  summary.erase(summary.begin());
  EXPECT_THAT(summary, ElementsAreArray(split_list(wait_summary_columns())));
  for (const auto& p : kWaitPartTable) {
    EXPECT_THAT(wait_row_columns(), HasSubstr(std::string(p.column)));
    EXPECT_THAT(wait_summary_columns(), HasSubstr(std::string(p.column)));
  }
}

TEST_F(DefinitionsTest, TheSchemaChecksExactlyTheTableCategories) {
  std::string list;
  for (const auto& c : kCategoryTable) list += (list.empty() ? "'" : ", '") + std::string(c.name) + "'";
  const std::string check = "CHECK (category IN (" + list + "))";
  const std::string& schema = schema_sql();
  std::size_t count = 0;
  for (std::size_t at = schema.find(check); at != std::string::npos; at = schema.find(check, at + 1)) ++count;
  EXPECT_EQ(count, 2U) << "profile and timeline";
}

TEST_F(DefinitionsTest, TheCategoriesTableListsTheCategoriesThenTheParts) {
  const auto& catalogue = category_catalogue();
  ASSERT_EQ(catalogue.size(), kCategories + kWaitParts);
  std::set<std::string> colours;
  for (std::size_t i = 0; i < kCategories; ++i) {
    EXPECT_EQ(catalogue[i].name, to_string(static_cast<Category>(i)));
    colours.insert(catalogue[i].color);
  }
  for (std::size_t i = 0; i < kWaitParts; ++i) {
    EXPECT_EQ(catalogue[kCategories + i].name, to_string(static_cast<WaitPart>(i)));
    EXPECT_EQ(catalogue[kCategories + i].resource, "WAIT");
    colours.insert(catalogue[kCategories + i].color);
  }
  EXPECT_EQ(colours.size(), catalogue.size()) << "every category and part has its own colour";
}

TEST_F(DefinitionsTest, NamesRoundTripThroughTheTable) {
  for (const auto& c : kCategoryTable) EXPECT_EQ(category_from_string(c.name), c.category);
  EXPECT_FALSE(category_from_string("CPLWait").has_value()) << "a part is not a profile category";
}

}  // namespace
}  // namespace ncp2::carnival
