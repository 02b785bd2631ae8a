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

TEST(GencodeRewrite, PerFileArchSpecificTargetTakesThePlainOnesPlace) {
  // One target per planned GPU: the file's own sm_90a (wgmma) replaces the planned sm_90.
  std::vector<std::string> args = {"nvcc",
                                   "-c",
                                   "fa.cu",
                                   "-gencode=arch=compute_80,code=sm_80",
                                   "-gencode=arch=compute_90a,code=sm_90a",
                                   "-gencode=arch=compute_100a,code=sm_100a"};
  auto r = launch::prune_arch_args(args, planned("9.0"));
  EXPECT_EQ(r.args, (std::vector<std::string>{"nvcc", "-c", "fa.cu", "-gencode=arch=compute_90a,code=sm_90a"}));
}

// flash-attention 2 (Dao-AILab/flash-attention 0251105, setup.py add_cuda_gencodes): FLASH_ATTN_CUDA_ARCHS=90
// gives `-gencode arch=compute_90,code=sm_90` and, for its newest entry, `arch=compute_90,code=compute_90`
// (PTX); the plan of an H100 image with TORCH_CUDA_ARCH_LIST=9.0a is 90a-real. Only sm_90a compiles.
TEST(GencodeRewrite, FlashAttention2ListOnA90aPlanBuildsOnlySm90a) {
  std::vector<std::string> args = {
      "nvcc",      "-c",       "flash_fwd_hdim128_fp16_sm80.cu", "-o",       "f.o",
      "-O3",       "-gencode", "arch=compute_90,code=sm_90",     "-gencode", "arch=compute_90,code=compute_90",
      "--threads", "4"};
  auto r = launch::prune_arch_args(args, *core::parse_cmake("90a-real", {}));
  EXPECT_EQ(r.args, (std::vector<std::string>{"nvcc", "-c", "flash_fwd_hdim128_fp16_sm80.cu", "-o", "f.o", "-O3",
                                              "--threads", "4", "-gencode=arch=compute_90a,code=sm_90a"}));
  EXPECT_EQ(r.dropped, (std::vector<std::string>{"sm_90", "compute_90"}));
  // kiln's own addition for targets the project cannot spell then has nothing left to add.
  EXPECT_FALSE(launch::add_arch_args(r.args, *core::parse_cmake("90a-real", {})).changed);
}

// flash-attention 3 (the same commit, hopper/setup.py): _sm90.cu files get sm_90a, _sm80.cu files sm_80,
// the rest sm_80 and sm_90a. On an H100 plan each builds one target, sm_90a where the file asks for it.
TEST(GencodeRewrite, FlashAttention3PerFileArchitectures) {
  const auto plan90 = planned("9.0");
  auto sm90 = launch::prune_arch_args(
      {"nvcc", "-c", "flash_fwd_hdim128_bf16_sm90.cu", "-gencode", "arch=compute_90a,code=sm_90a"}, plan90);
  EXPECT_EQ(sm90.args.back(), "-gencode=arch=compute_90a,code=sm_90a");
  EXPECT_TRUE(sm90.dropped.empty());  // the file asked for nothing else
  auto sm80 = launch::prune_arch_args(
      {"nvcc", "-c", "flash_fwd_hdim128_bf16_sm80.cu", "-gencode", "arch=compute_80,code=sm_80"}, plan90);
  EXPECT_EQ(sm80.args.back(), "-gencode=arch=compute_90,code=sm_90");
  auto both = launch::prune_arch_args({"nvcc", "-c", "flash_prepare_scheduler.cu", "-gencode",
                                       "arch=compute_90a,code=sm_90a", "-gencode", "arch=compute_80,code=sm_80"},
                                      plan90);
  EXPECT_EQ(both.args, (std::vector<std::string>{"nvcc", "-c", "flash_prepare_scheduler.cu",
                                                 "-gencode=arch=compute_90a,code=sm_90a"}));
  // A planned PTX stays beside the file's sm_90a: it is for GPUs the plan names beyond this one.
  auto ptx = launch::prune_arch_args({"nvcc", "-c", "k_sm90.cu", "-gencode", "arch=compute_90a,code=sm_90a"},
                                     planned("9.0+PTX"));
  EXPECT_EQ(ptx.args, (std::vector<std::string>{"nvcc", "-c", "k_sm90.cu", "-gencode=arch=compute_90,code=compute_90",
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
