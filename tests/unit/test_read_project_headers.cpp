// The headers a project holds, for a missing-header diagnosis that names where the header is (issue 33):
// torch-points-kernels 40153193 ships cpu/include/ball_query.h behind a relative include_dirs.
#include <gtest/gtest.h>

#include <algorithm>

#include "read/project_headers.hpp"
#include "test_support.hpp"

using namespace kiln;

TEST(ProjectHeaders, ListsTheProjectsHeadersRelativeToItAndSkipsBuildOutputs) {
  io::FakeFilesystem fs;
  fs.add_file("/p/setup.py", "...");
  fs.add_file("/p/cpu/include/ball_query.h", "int ball_query();");
  fs.add_file("/p/cuda/include/kernels.cuh", "");
  fs.add_file("/p/cpu/src/ball_query.cpp", "#include \"ball_query.h\"");
  fs.add_file("/p/build/temp/generated.h", "");
  auto h = read::project_headers(fs, "/p");
  std::sort(h.begin(), h.end());
  EXPECT_EQ(h, (std::vector<std::string>{"cpu/include/ball_query.h", "cuda/include/kernels.cuh"}));
}
