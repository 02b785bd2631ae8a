#include <gtest/gtest.h>

#include "drive/ninja_progress.hpp"

using namespace kiln::drive;

TEST(NinjaProgress, ParsesStatusLines) {
  auto s = parse_ninja_status("[12/340] Building CUDA object mt_cuda/CMakeFiles/mt_cuda.dir/sobel.cu.o");
  ASSERT_TRUE(s);
  EXPECT_EQ(s->done, 12);
  EXPECT_EQ(s->total, 340);
  EXPECT_EQ(s->description, "Building CUDA object mt_cuda/CMakeFiles/mt_cuda.dir/sobel.cu.o");
}

TEST(NinjaProgress, IndentedByPip) {
  auto s = parse_ninja_status("  [2/3] /usr/local/cuda/bin/nvcc -c a.cu");
  ASSERT_TRUE(s);
  EXPECT_EQ(s->done, 2);
}

TEST(NinjaProgress, IgnoresOtherLines) {
  EXPECT_FALSE(parse_ninja_status("FAILED: mt_cuda/CMakeFiles/x.o"));
  EXPECT_FALSE(parse_ninja_status("[ 50%] Building CXX object x.o"));  // make's format
  EXPECT_FALSE(parse_ninja_status("[3/2] impossible"));
  EXPECT_FALSE(parse_ninja_status("[a/b] x"));
  EXPECT_FALSE(parse_ninja_status("ninja: build stopped: subcommand failed."));
}

TEST(NinjaProgress, EtaFromRate) {
  NinjaStatus s{10, 40, "x"};
  auto eta = estimate_remaining(s, std::chrono::milliseconds(20000));
  ASSERT_TRUE(eta);
  EXPECT_EQ(eta->count(), 60);
  EXPECT_FALSE(estimate_remaining(NinjaStatus{1, 40, "x"}, std::chrono::milliseconds(20000)));
}
