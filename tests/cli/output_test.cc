// Tables as text and CSV, number cells, and the progress bar's frames.
#include "output.h"

#include <gtest/gtest.h>

#include "progress.h"

namespace flopspack::cli {
namespace {

TEST(TableTest, AlignsTextAndQuotesCsv) {
  Table table({"<name", "count"});
  table.AddRow({"a", "1"});
  table.AddRow({"long, name", "1,234"});
  EXPECT_EQ(table.Text(),
            "name        count\n"
            "----------  -----\n"
            "a               1\n"
            "long, name  1,234\n");
  EXPECT_EQ(table.Csv(), "name,count\r\na,1\r\n\"long, name\",\"1,234\"\r\n");
}

TEST(TableTest, WidthCountsCodePoints) {
  Table table({"<x", "y"});
  table.AddRow({"é", "1"});
  EXPECT_EQ(table.Text(), "x  y\n-  -\né  1\n");
}

TEST(CellTest, Numbers) {
  EXPECT_EQ(Cell(int64_t{0}), "0");
  EXPECT_EQ(Cell(int64_t{999}), "999");
  EXPECT_EQ(Cell(int64_t{1000}), "1,000");
  EXPECT_EQ(Cell(int64_t{-1234567}), "-1,234,567");
  EXPECT_EQ(Cell(INT64_MIN), "-9,223,372,036,854,775,808");
  EXPECT_EQ(Cell(0.123456, 3), "0.123");
  EXPECT_EQ(Percent(0.98765), "98.8%");
  EXPECT_EQ(Si(1.234e15), "1.23P");
  EXPECT_EQ(Si(999), "999");
  EXPECT_EQ(Si(1000), "1k");
}

TEST(ProgressTest, Frames) {
  EXPECT_EQ(RenderBar("sweep", 0, 4, 8), "sweep [........]   0% (0/4)");
  EXPECT_EQ(RenderBar("sweep", 1, 4, 8), "sweep [##......]  25% (1/4)");
  EXPECT_EQ(RenderBar("sweep", 4, 4, 8), "sweep [########] 100% (4/4)");
  EXPECT_EQ(RenderBar("sweep", 9, 4, 8), "sweep [########] 100% (4/4)");
  EXPECT_EQ(RenderBar("x", 0, 0, 2), "x [##] 100% (0/0)");
}

}  // namespace
}  // namespace flopspack::cli
