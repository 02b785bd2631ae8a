#include <gtest/gtest.h>

#include "test_support.hpp"

#include <fstream>
#include <sstream>

#include "launch/nvcc_phases.hpp"

// Recorded on the development machine (nvcc 13.0, ccache 4.7.5): `ccache nvcc -c k.cu -o c.o
// -gencode arch=compute_90,code=sm_90` with NVCC_APPEND_FLAGS=--time=FILE, a cache miss, so the
// file also holds ccache's own preprocessing run.
TEST(NvccPhases, SplitsARecordedCompileIntoPhases) {
  std::ifstream f(kiln::testing::source_dir() + "/tests/fixtures/nvcc_time/ccache_miss_sm90.csv");
  ASSERT_TRUE(f) << "fixture missing";
  std::stringstream ss;
  ss << f.rdbuf();
  auto p = kiln::launch::parse_nvcc_phases(ss.str());
  EXPECT_EQ(p.rows, 10);
  ASSERT_EQ(p.archs.size(), 1u);
  EXPECT_NEAR(p.archs.at(90).device_ms, 579.6260 + 1928.0339, 1e-6);  // preprocessing 1 + cicc
  EXPECT_NEAR(p.archs.at(90).ptxas_ms, 275.5400, 1e-6);
  EXPECT_NEAR(p.front_end_ms, 696.8020 + 594.9110 + 4379.9331, 1e-6);  // ccache's -E, preprocessing 4, cudafe++
  EXPECT_NEAR(p.host_ms, 1581.1069, 1e-6);
  EXPECT_NEAR(p.link_ms, 43.8580, 1e-6);
  EXPECT_NEAR(p.other_ms, 0.5570 + 1.6758, 1e-6);  // the driver
}

TEST(NvccPhases, BadRowsAreSkippedAndSecondsConverted) {
  auto p = kiln::launch::parse_nvcc_phases(
      "a.cu , ptxas , x , y , sm_100a , nvcc , 1.5 , s\n"
      "a.cu , cicc , x , y , , nvcc , 2 , ms\n"
      "a.cu , cicc , x , y , compute_90 , nvcc , -4 , ms\n"
      "not,a,row\n,,,,,,,\n");
  EXPECT_EQ(p.rows, 2);
  EXPECT_DOUBLE_EQ(p.archs.at(100).ptxas_ms, 1500);
  EXPECT_DOUBLE_EQ(p.other_ms, 2);  // device phase without an arch
  EXPECT_TRUE(kiln::launch::parse_nvcc_phases("").empty());
}

// nvcc splits NVCC_APPEND_FLAGS on blanks with no quoting: a build folder "build out" broke every
// CUDA compile with "A single input file is required" (issue 21).
TEST(NvccPhases, AppendFlagsPathHoldsNoBlank) {
  using kiln::launch::append_flags_path;
  EXPECT_EQ(append_flags_path("/w/build/.kiln/time/a.csv", "/w/build"), "/w/build/.kiln/time/a.csv");
  EXPECT_EQ(append_flags_path("/w/build out/.kiln/time/a.csv", "/w/build out"), ".kiln/time/a.csv");
  EXPECT_EQ(append_flags_path("/w/build out/.kiln/time/a.csv", "/w/build out/sub"), "../.kiln/time/a.csv");
  EXPECT_EQ(append_flags_path("/w/my proj/t.csv", "/w/build out"), std::nullopt);
  EXPECT_EQ(append_flags_path("/w/a b/t.csv", ""), std::nullopt);
}
