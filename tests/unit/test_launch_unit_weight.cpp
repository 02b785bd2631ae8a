// The work of a compile unit (launch/unit_weight.hpp): estimates from a fake file tree, and the
// weights on one scale when some units are learned and others only estimated.
#include <gtest/gtest.h>

#include "launch/unit_weight.hpp"
#include "fakes/fs.hpp"

using namespace kiln;

TEST(UnitWeight, EstimateCountsTheSourceAndItsProjectHeadersOnce) {
  io::FakeFilesystem fs;
  // mamba's pattern (e9594ce csrc/selective_scan): a tiny .cu instantiating a big kernel header.
  fs.add_file("/p/csrc/scan_bwd.cu", "#include \"bwd_kernel.cuh\"\n#include <cuda.h>\n");
  fs.add_file("/p/csrc/bwd_kernel.cuh", "#include \"common.h\"\nk<<<1, 1>>>(); k<<<2, 1>>>();\n");
  fs.add_file("/p/csrc/scan_fwd.cu", "#include  \"fwd_kernel.cuh\"\n");
  fs.add_file("/p/csrc/fwd_kernel.cuh", "#include \"common.h\"\n#include \"fwd_kernel.cuh\"\nk<<<1, 1>>>();\n");
  fs.add_file("/p/csrc/common.h", "k<<<3, 1>>>();\n");
  const auto bwd = launch::estimate_unit(fs, "/p/csrc/scan_bwd.cu", 1);
  const auto fwd = launch::estimate_unit(fs, "/p/csrc/scan_fwd.cu", 1);
  EXPECT_DOUBLE_EQ(bwd.launches, 3);  // source, its header, the shared one: each once
  EXPECT_DOUBLE_EQ(fwd.launches, 2);  // a header including itself counts once
  EXPECT_DOUBLE_EQ(launch::estimate_work(fs, "/p/csrc/scan_bwd.cu", 1), bwd.seconds);
  EXPECT_GT(bwd.seconds, fwd.seconds);
  EXPECT_EQ(launch::estimate_work(fs, "/p/csrc/missing.cu", 1), 0);
}

TEST(UnitWeight, EstimatesAloneAreTheScale) {
  auto w = launch::unit_weights({{300, std::nullopt}, {100, std::nullopt}});
  EXPECT_EQ(w.basis, "estimate");
  EXPECT_DOUBLE_EQ(w.w[0], 3 * w.w[1]);
}

TEST(UnitWeight, LearnedTimesWinAndScaleTheEstimates) {
  // Two units learned (their estimates say 1 ms per 10 bytes), one new: 2000 bytes -> 200 ms.
  auto w = launch::unit_weights({{1000, 100L}, {3000, 300L}, {2000, std::nullopt}});
  EXPECT_EQ(w.basis, "learned and estimated");
  EXPECT_DOUBLE_EQ(w.w[0], 100);
  EXPECT_DOUBLE_EQ(w.w[1], 300);
  EXPECT_DOUBLE_EQ(w.w[2], 200);
  w = launch::unit_weights({{0, 5000L}, {0, 1000L}});
  EXPECT_EQ(w.basis, "learned CPU time");
  EXPECT_DOUBLE_EQ(w.w[0], 5000);
}

TEST(UnitWeight, UnknownUnitsWeighTheMeanOfTheOthers) {
  auto w = launch::unit_weights({{0, std::nullopt}, {0, 100L}, {0, 300L}});
  EXPECT_DOUBLE_EQ(w.w[0], 200);
  w = launch::unit_weights({{0, std::nullopt}, {0, std::nullopt}});
  EXPECT_EQ(w.basis, "equal");
  EXPECT_DOUBLE_EQ(w.w[0], w.w[1]);
  EXPECT_TRUE(launch::unit_weights({}).w.empty());
}
