// The PyTorch CUDA wheel index for the nvcc kiln found (issue 33: the CPU-only-torch advice named
// cu130 whatever CUDA the machine had).
#include <gtest/gtest.h>

#include "core/torch_index.hpp"

using namespace kiln;

TEST(TorchIndex, TheTagFollowsNvccsRelease) {
  EXPECT_EQ(core::torch_cuda_tag("12.4.131"), "cu124");
  EXPECT_EQ(core::torch_cuda_tag("12.4"), "cu124");
  EXPECT_EQ(core::torch_cuda_tag("13.0.88"), "cu130");
  EXPECT_EQ(core::torch_cuda_tag("11.8.89"), "cu118");
  for (const char* bad : {"", "12", "12.", ".4", "x.y", "12.4a"}) EXPECT_EQ(core::torch_cuda_tag(bad), "") << bad;
}

TEST(TorchIndex, TheInstallCommandNamesTheIndexOrSaysNoNvccWasFound) {
  const auto cmd = core::cuda_torch_install("12.4.131");
  EXPECT_NE(cmd.find("--index-url https://download.pytorch.org/whl/cu124 (the index for CUDA 12.4,"), std::string::npos)
      << cmd;
  const auto none = core::cuda_torch_install("");
  EXPECT_NE(none.find("kiln found no nvcc"), std::string::npos) << none;
  EXPECT_EQ(none.find("--index-url"), std::string::npos) << none;
}
