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

// issue 33: the advice named cu<nvcc's release> whether PyTorch publishes it or not (nvcc 12.5 got
// cu125, which does not exist). The index is now the newest published one of the nvcc's major not
// newer than it (data/torch_indexes.toml), said so when it differs, and none when nothing fits.
TEST(TorchIndex, TheIndexIsOnePyTorchPublishes) {
  auto tag = [](const char* nvcc) {
    const auto i = core::torch_index_for(nvcc);
    return i ? i->tag : std::string("none");
  };
  EXPECT_EQ(tag("12.5.82"), "cu124");
  EXPECT_EQ(tag("12.4.131"), "cu124");
  EXPECT_EQ(tag("12.6"), "cu126");
  EXPECT_EQ(tag("12.7"), "cu126");
  EXPECT_EQ(tag("12.9.1"), "cu129");
  EXPECT_EQ(tag("13.0.88"), "cu130");
  EXPECT_EQ(tag("13.1"), "cu130");
  EXPECT_EQ(tag("11.7"), "cu117");
  EXPECT_EQ(tag("11.8.89"), "cu118");
  EXPECT_EQ(tag("11.4"), "cu113");
  // Another major is never named: cpp_extension refuses it.
  EXPECT_EQ(tag("12.0.140"), "none");
  EXPECT_EQ(tag("10.1"), "none");
  EXPECT_EQ(tag(""), "none");
  // Every tag of the table is the spelling of its CUDA, and the releases are named.
  for (const auto& i : core::torch_indexes()) {
    EXPECT_EQ(i.tag, core::torch_cuda_tag(i.cuda.str())) << i.tag;
    EXPECT_FALSE(i.first.empty()) << i.tag;
  }
  const auto cu117 = core::torch_index_for("11.7");
  ASSERT_TRUE(cu117);
  EXPECT_EQ(cu117->first, "1.13");
  EXPECT_EQ(cu117->last, "2.0");
}

TEST(TorchIndex, TheInstallCommandSaysWhenTheIndexIsAnOlderMinor) {
  const auto older = core::cuda_torch_install("12.5.82");
  EXPECT_NE(older.find("--index-url https://download.pytorch.org/whl/cu124 (PyTorch publishes no cu125 index"),
            std::string::npos)
      << older;
  EXPECT_NE(older.find("torch 2.4 to 2.6"), std::string::npos) << older;
  const auto exact = core::cuda_torch_install("13.0.88");
  EXPECT_NE(exact.find("whl/cu130 (the index for CUDA 13.0,"), std::string::npos) << exact;
  const auto none = core::cuda_torch_install("12.0.140");
  EXPECT_EQ(none.find("--index-url"), std::string::npos) << none;
  EXPECT_NE(none.find("no CUDA wheel index that the nvcc kiln found (CUDA 12.0) can build against"), std::string::npos)
      << none;
}
