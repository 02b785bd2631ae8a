#include <gtest/gtest.h>

#include "core/arch_spec.hpp"
#include "launch/gencode_rewrite.hpp"

using namespace kiln;

namespace {
core::TargetSet planned(const char* torch) { return core::parse_torch(torch).value(); }
}  // namespace

TEST(GencodeRewrite, CausalConv1dStyleFlagsArePrunedToThePlan) {
  // causal-conv1d's setup.py: nine -gencode pairs and --threads 4, whatever TORCH_CUDA_ARCH_LIST says.
  std::vector<std::string> args = {"nvcc", "-c", "conv.cu", "-o", "conv.o", "-O3"};
  for (int a : {75, 80, 87, 90, 100, 120, 103, 110, 121}) {
    args.push_back("-gencode");
    args.push_back("arch=compute_" + std::to_string(a) + ",code=sm_" + std::to_string(a));
  }
  args.push_back("--threads");
  args.push_back("4");
  auto r = launch::prune_arch_args(args, planned("9.0"));
  EXPECT_TRUE(r.changed);
  EXPECT_EQ(r.args, (std::vector<std::string>{"nvcc", "-c", "conv.cu", "-o", "conv.o", "-O3", "--threads", "4",
                                              "-gencode=arch=compute_90,code=sm_90"}));
  EXPECT_EQ(r.dropped.size(), 8u);
}

TEST(GencodeRewrite, PerFileArchSpecificExtrasForPlannedGpusStay) {
  std::vector<std::string> args = {"nvcc",
                                   "-c",
                                   "fa.cu",
                                   "-gencode=arch=compute_80,code=sm_80",
                                   "-gencode=arch=compute_90a,code=sm_90a",
                                   "-gencode=arch=compute_100a,code=sm_100a"};
  auto r = launch::prune_arch_args(args, planned("9.0"));
  EXPECT_EQ(r.args, (std::vector<std::string>{"nvcc", "-c", "fa.cu", "-gencode=arch=compute_90,code=sm_90",
                                              "-gencode=arch=compute_90a,code=sm_90a"}));
}

TEST(GencodeRewrite, ArchAndCodeFormsAndPtx) {
  auto r = launch::prune_arch_args({"nvcc", "-arch", "sm_80", "x.cu"}, planned("9.0+PTX"));
  EXPECT_EQ(r.args, (std::vector<std::string>{"nvcc", "x.cu", "-gencode=arch=compute_90,code=sm_90",
                                              "-gencode=arch=compute_90,code=compute_90"}));
  auto c = launch::prune_arch_args({"nvcc", "-arch=compute_80", "-code=sm_80,compute_80", "x.cu"}, planned("8.0"));
  EXPECT_EQ(c.args, (std::vector<std::string>{"nvcc", "x.cu", "-gencode=arch=compute_80,code=sm_80"}));
}

TEST(GencodeRewrite, NoArchFlagsNoChange) {
  std::vector<std::string> args = {"nvcc", "-c", "x.cu", "-o", "x.o"};
  auto r = launch::prune_arch_args(args, planned("9.0"));
  EXPECT_FALSE(r.changed);
  EXPECT_EQ(r.args, args);
}

TEST(GencodeRewrite, AlreadyPlannedIsUnchanged) {
  std::vector<std::string> args = {"nvcc", "-c", "x.cu", "-gencode=arch=compute_90,code=sm_90"};
  auto r = launch::prune_arch_args(args, planned("9.0"));
  EXPECT_FALSE(r.changed);
}

TEST(GencodeRewrite, TargetsTorchCannotSpellAreAddedToDeviceCompiles) {
  // torch's TORCH_CUDA_ARCH_LIST has no 10.0f: cpp_extension passes sm_100, kiln adds sm_100f.
  auto extra = *core::parse_cmake("100f-real", {});
  std::vector<std::string> cmd = {"nvcc", "-c", "k.cu", "-o", "k.o", "-gencode=arch=compute_100,code=sm_100"};
  auto r = launch::add_arch_args(cmd, extra);
  EXPECT_TRUE(r.changed);
  EXPECT_EQ(r.args.back(), "-gencode=arch=compute_100f,code=sm_100f");
  // Already there, or not a device compile (no architecture flag): untouched.
  EXPECT_FALSE(launch::add_arch_args(r.args, extra).changed);
  std::vector<std::string> link = {"nvcc", "-shared", "k.o", "-o", "k.so"};
  EXPECT_EQ(launch::add_arch_args(link, extra).args, link);
}
