// Where `flopspack report` finds its renderer.
#include "renderer.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <fstream>

namespace flopspack::cli {
namespace {

TEST(RendererTest, EnvironmentOverridesThenSourceTree) {
  const std::string script = ::testing::TempDir() + "/my_report.py";
  std::ofstream(script) << "print()\n";
  setenv("FLOPSPACK_REPORT_SCRIPT", script.c_str(), 1);
  setenv("FLOPSPACK_PYTHON", "/opt/py/bin/python3", 1);
  EXPECT_EQ(RendererCommand("r.json", "out"),
            (std::vector<std::string>{"/opt/py/bin/python3", script, "r.json", "--out", "out"}));
  // A script that does not exist is ignored: the build's own copy is used.
  setenv("FLOPSPACK_REPORT_SCRIPT", "/nonexistent/report.py", 1);
  unsetenv("FLOPSPACK_PYTHON");
  const std::vector<std::string> command = RendererCommand("r.json", "out");
  ASSERT_EQ(command.size(), 5u);
  EXPECT_NE(command[1].find("report.py"), std::string::npos);
  EXPECT_NE(command[1], "/nonexistent/report.py");
  unsetenv("FLOPSPACK_REPORT_SCRIPT");
}

}  // namespace
}  // namespace flopspack::cli
