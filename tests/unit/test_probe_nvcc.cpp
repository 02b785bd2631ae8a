#include <gtest/gtest.h>

#include <sstream>

#include "fakes/process.hpp"
#include "probe/local_gpus.hpp"
#include "probe/nvcc.hpp"
#include "test_support.hpp"

using namespace kiln;

TEST(Nvcc, ParsesReleaseFromVersionOutput) {
  const std::string out =
      "nvcc: NVIDIA (R) Cuda compiler driver\nCopyright (c) 2005-2025 NVIDIA Corporation\n"
      "Built on Wed_Aug_20_01:58:59_PM_PDT_2025\nCuda compilation tools, release 13.0, V13.0.88\n"
      "Build cuda_13.0.r13.0/compiler.36424714_0\n";
  EXPECT_EQ(probe::parse_nvcc_release(out).value(), "13.0.88");
  EXPECT_FALSE(probe::parse_nvcc_release("bash: nvcc: command not found"));
}

TEST(Nvcc, FoundThroughCudaHomeFirst) {
  kiln::testing::FakeSeams t;
  auto [fs, proc, env, s] = std::tie(t.fs, t.proc, t.env, t.seams);
  fs.add_file("/opt/cuda-12.8/bin/nvcc", "", true);
  fs.add_file("/usr/local/cuda/bin/nvcc", "", true);
  env.set("CUDA_HOME", "/opt/cuda-12.8");
  env.set("PATH", "/usr/bin");
  std::string how;
  EXPECT_EQ(probe::find_nvcc(s, &how).value(), "/opt/cuda-12.8/bin/nvcc");
  EXPECT_EQ(how, "CUDA_HOME");
  proc.on("/opt/cuda-12.8/bin/nvcc --version", io::ran("Cuda compilation tools, release 12.8, V12.8.93"));
  proc.on("/opt/cuda-12.8/bin/nvcc --list-gpu-code", io::ran("sm_50\nsm_90\nsm_100\nsm_120\n"));
  proc.on("/opt/cuda-12.8/bin/nvcc --list-gpu-arch", io::ran("compute_50\ncompute_90\n"));
  auto info = probe::probe_nvcc(s).value();
  EXPECT_EQ(info.version_text, "12.8.93");
  EXPECT_TRUE(info.can_build(core::Arch{100, core::Variant::a}));
  EXPECT_FALSE(info.can_build(core::Arch{100, core::Variant::f}));  // f variants arrived in 12.9
  EXPECT_FALSE(info.can_build(core::Arch{89}));
}

TEST(LocalGpus, ParsesNvidiaSmiCsv) {
  auto gpus = probe::parse_nvidia_smi_csv(
      "0, NVIDIA H100 80GB HBM3, 9.0, 580.95.05, 81559\n1, NVIDIA A10G, 8.6, 580.95.05, 23028\nbad line\n");
  ASSERT_EQ(gpus.size(), 2u);
  EXPECT_EQ(gpus[0].name, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(gpus[0].cc, 90);
  EXPECT_EQ(gpus[1].memory_mib, 23028);
}

TEST(LocalGpus, DriverCudaVersionFromTheSummaryOrQuery) {
  EXPECT_EQ(
      probe::parse_driver_cuda("| NVIDIA-SMI 580.95.05    Driver Version: 580.95.05    CUDA Version: 13.0     |\n"),
      13000);
  EXPECT_EQ(
      probe::parse_driver_cuda(
          "Driver Version                            : 550.54.14\nCUDA Version                              : 12.4\n"),
      12040);
  EXPECT_EQ(probe::parse_driver_cuda("No devices were found"), 0);
}
