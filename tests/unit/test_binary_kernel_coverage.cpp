// Coverage per kernel: specialised kernels are absent by design, holes are missing.
#include <gtest/gtest.h>

#include "binary/kernel_coverage.hpp"

using namespace kiln;
using namespace kiln::binary;

namespace {

EntryReport entry(core::CodeKind kind, int sm, core::Variant v, std::initializer_list<const char*> kernels) {
  EntryReport e;
  e.target = core::Target{core::Arch{sm, v}, kind};
  for (auto k : kernels) {
    KernelInfo ki;
    ki.name = k;
    e.kernels.push_back(ki);
  }
  return e;
}

const auto S = core::CodeKind::sass;
const auto P = core::CodeKind::ptx;
const auto N = core::Variant::none;

}  // namespace

TEST(KernelCoverage, HolesAreMissingSpecialisedKernelsAreNot) {
  FileReport f;
  // `generic` is built for every family; `hole` for all but 9.x; `ampere_tile` only for 8.x;
  // `hopper` only sm_90a. Device functions are not kernels.
  f.entries.push_back(entry(S, 75, N, {"generic", "hole"}));
  f.entries.push_back(entry(S, 80, N, {"generic", "hole", "ampere_tile"}));
  f.entries.push_back(entry(S, 86, N, {"ampere_tile"}));
  f.entries.push_back(entry(S, 90, N, {"generic"}));
  f.entries.push_back(entry(S, 90, core::Variant::a, {"hopper"}));
  f.entries.push_back(entry(S, 100, N, {"generic", "hole"}));
  KernelInfo dev;
  dev.name = "helper";
  dev.entry = false;
  f.entries.back().kernels.push_back(dev);
  auto t = kernel_table(f);
  ASSERT_EQ(t.kernels.size(), 4u);

  auto h100 = kernel_coverage(t, 90);
  EXPECT_EQ(h100.total, 4u);
  EXPECT_EQ(h100.runnable, 2u);  // generic, hopper
  EXPECT_EQ(h100.missing, (std::vector<std::string>{"hole"}));
  EXPECT_EQ(h100.specialised, 1u);  // ampere_tile

  auto a100 = kernel_coverage(t, 80);
  EXPECT_TRUE(a100.missing.empty());
  EXPECT_EQ(a100.specialised, 1u);  // hopper

  // 12.0: no SASS of the file runs there, so nothing is "specialised away": all four are missing.
  auto rtx5090 = kernel_coverage(t, 120);
  EXPECT_EQ(rtx5090.missing.size(), 4u);
}

TEST(KernelCoverage, PtxServesNewerGpusKernelByKernel) {
  FileReport f;
  f.entries.push_back(entry(S, 80, N, {"a", "b"}));
  f.entries.push_back(entry(P, 80, N, {"a"}));  // only `a` has PTX (the 128-byte stub case)
  auto t = kernel_table(f);
  auto thor = kernel_coverage(t, 110);
  EXPECT_EQ(thor.runnable, 1u);
  EXPECT_EQ(thor.missing, (std::vector<std::string>{"b"}));
  EntryReport broken = entry(S, 90, N, {});
  broken.error = "zstd: corrupt";
  f.entries.push_back(broken);
  EXPECT_EQ(kernel_table(f).unreadable_entries, 1u);
}

TEST(KernelCoverage, WhereEachImageRuns) {
  core::TargetSet s;
  s.add({core::Arch{80}, S});
  s.add({core::Arch{90, core::Variant::a}, S});
  s.add({core::Arch{90}, P});
  EXPECT_EQ(runs_on(s), (std::vector<std::string>{"8.0-8.9 (sm_80)", ">=9.0 (compute_90, JIT)", "9.0 (sm_90a)"}));
}
