// GPUs set against the toolkit and torch.
#include <gtest/gtest.h>

#include "probe/gpu_check.hpp"

using namespace kiln::probe;

namespace {

const Finding* find(const Findings& f, const std::string& code) {
  for (const auto& x : f)
    if (x.code == code) return &x;
  return nullptr;
}

LocalGpus h100(int driver_cuda) {
  LocalGpus g;
  g.source = "nvml";
  g.driver_cuda = driver_cuda;
  g.gpus.push_back({0, "NVIDIA H100 80GB HBM3", 90, "550.54.15", 81559});
  return g;
}

CudaToolkit toolkit(const char* v) {
  CudaToolkit tk;
  tk.found = true;
  tk.version = parse_version(v);
  return tk;
}

}  // namespace

TEST(GpuCheck, ToolkitNewerThanTheDriverSupports) {
  auto f = check_gpus(h100(12040), toolkit("13.0.88"), std::nullopt);
  auto* x = find(f, "gpus.driver-too-old");
  ASSERT_NE(x, nullptr);
  EXPECT_EQ(x->severity, Severity::error);
  EXPECT_NE(x->cause.find("12.4"), std::string::npos);
  f = check_gpus(h100(12040), toolkit("12.8"), std::nullopt);
  EXPECT_EQ(find(f, "gpus.driver-older-minor")->severity, Severity::warning);
  EXPECT_TRUE(check_gpus(h100(13000), toolkit("13.0"), std::nullopt).empty());
}

TEST(GpuCheck, TorchWithoutKernelsForTheGpu) {
  TorchInfo t;
  t.version = "2.5.1+cu121";
  t.arch_list = {"sm_50", "sm_60", "sm_70", "sm_75", "sm_80", "sm_86"};
  auto f = check_gpus(h100(12040), toolkit("12.4"), t);
  EXPECT_EQ(find(f, "gpus.torch-arch-missing")->severity, Severity::error);
  t.arch_list.push_back("compute_86");
  f = check_gpus(h100(12040), toolkit("12.4"), t);
  EXPECT_EQ(find(f, "gpus.torch-arch-missing"), nullptr);
  EXPECT_EQ(find(f, "gpus.torch-ptx-only")->severity, Severity::warning);
  t.arch_list.push_back("sm_90");
  EXPECT_TRUE(check_gpus(h100(12040), toolkit("12.4"), t).empty());
}

TEST(GpuCheck, GpuTheToolkitCannotBuildFor) {
  LocalGpus g;
  g.source = "nvidia-smi";
  g.gpus.push_back({0, "Tesla V100-SXM2-16GB", 70, "535.0", 16384});
  EXPECT_EQ(find(check_gpus(g, toolkit("13.0"), std::nullopt), "gpus.arch-unsupported-by-nvcc")->severity,
            Severity::error);
  EXPECT_EQ(find(check_gpus(g, toolkit("12.4"), std::nullopt), "gpus.arch-unsupported-by-nvcc"), nullptr);
}

TEST(GpuCheck, NoGpuIsANote) {
  LocalGpus none;
  none.note = "libnvidia-ml.so.1 not found";
  auto f = check_gpus(none, toolkit("13.0"), std::nullopt);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].severity, Severity::note);
}
