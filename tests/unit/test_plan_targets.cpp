// Choosing the CUDA targets: which source wins, and what an older toolkit builds for a newer GPU.
#include <gtest/gtest.h>

#include <sstream>

#include "plan/targets.hpp"
#include "test_support.hpp"

using namespace kiln;

namespace {

struct FakeGpus : probe::GpuQuery {
  probe::LocalGpus answer;
  int asked = 0;
  probe::LocalGpus query() override {
    ++asked;
    return answer;
  }
};

struct Harness : kiln::testing::FakeSeams {
  FakeGpus local;
  probe::NvccInfo nvcc;
  Harness() {
    env.set("PATH", "/usr/bin");
    nvcc.path = "/usr/local/cuda/bin/nvcc";
    nvcc.version_text = "12.4.131";
    nvcc.version = core::CudaVersion{12, 4};
    for (int a : {75, 80, 86, 89, 90}) nvcc.sass.push_back(core::Arch{a});
  }
  tl::expected<plan::TargetChoice, plan::PlanError> choose(const plan::TargetRequest& r) {
    return plan::choose_targets(r, nvcc, local, seams);
  }
};

std::string names(const core::TargetSet& t) {
  std::string s;
  for (const auto& x : t) s += (s.empty() ? "" : ";") + x.name();
  return s;
}

core::GpuModel gpu(const std::string& name, int cc) { return core::GpuModel{name, cc, "", "", {}}; }

}  // namespace

TEST(PlanTargets, NewerGpuGetsSameMajorSassElsePtxBelowWithANote) {
  Harness h;
  std::vector<std::string> notes;
  // 8.7 is not built by this nvcc: 8.6 SASS runs on it; 10.0 has no same-major SASS: 9.0 PTX.
  auto t = plan::targets_for_gpus({87, 100, 80, 80}, h.nvcc, notes);
  EXPECT_EQ(names(t), "sm_80;sm_86;compute_90");
  ASSERT_EQ(notes.size(), 2u);
  EXPECT_NE(notes[0].find("same major"), std::string::npos);
  EXPECT_NE(notes[1].find("JIT"), std::string::npos);
}

TEST(PlanTargets, ArchsWinOverProfileGpusAndEnvironment) {
  Harness h;
  auto c = h.choose(
      {.archs = "8.0", .profile = "p", .profile_archs = "9.0", .gpus = {gpu("H100", 90)}, .env_arch_list = "7.5"});
  ASSERT_TRUE(c) << c.error().message;
  EXPECT_EQ(names(c->targets), "sm_80");
  EXPECT_EQ(c->source, "--archs");
  EXPECT_EQ(c->gpus.size(), 1u);  // the named GPUs are still what verification checks against
  EXPECT_EQ(h.local.asked, 0);
}

TEST(PlanTargets, ProfileListThenNamedGpusThenEnvironmentThenLocalThenDefault) {
  Harness h;
  EXPECT_EQ(h.choose({.profile = "wide", .profile_archs = "8.0;9.0", .gpus = {gpu("A100", 80)}})->source,
            "profile wide");
  EXPECT_EQ(h.choose({.gpus = {gpu("A100", 80)}, .env_arch_list = "9.0"})->source, "--gpu");
  EXPECT_EQ(h.choose({.env_arch_list = "9.0"})->source, "TORCH_CUDA_ARCH_LIST");
  EXPECT_EQ(h.choose({.env_arch_list = ""})->source, "default");  // an empty variable says nothing
  h.local.answer.gpus.push_back({.name = "NVIDIA L4", .cc = 89});
  h.local.answer.source = "nvidia-smi";
  auto local = h.choose({});
  ASSERT_TRUE(local);
  EXPECT_EQ(local->source, "local GPUs");
  EXPECT_EQ(names(local->targets), "sm_89");
  ASSERT_EQ(local->gpus.size(), 1u);
  EXPECT_EQ(local->gpus[0].name, "NVIDIA L4");
}

TEST(PlanTargets, ProfileGpusOrLocalWithoutAnyIsAUsageError) {
  Harness h;
  auto named = h.choose({.profile = "production", .profile_archs = "gpus"});
  ASSERT_FALSE(named);
  EXPECT_TRUE(named.error().usage);
  EXPECT_NE(named.error().message.find("--gpu"), std::string::npos);
  auto local = h.choose({.profile = "dev", .profile_archs = "local"});
  ASSERT_FALSE(local);
  EXPECT_TRUE(local.error().usage);
}

TEST(PlanTargets, CheckRefusesWhatNvccCannotBuildAndGpusNoTargetRuns) {
  Harness h;
  core::TargetSet t;
  t.add({core::Arch{100}, core::CodeKind::sass});
  auto unbuildable = plan::check_targets(t, {}, h.nvcc);
  ASSERT_FALSE(unbuildable);
  EXPECT_FALSE(unbuildable.error().usage);  // the toolkit's limit, not the user's typo
  EXPECT_NE(unbuildable.error().message.find("sm_100"), std::string::npos);

  core::TargetSet ampere;
  ampere.add({core::Arch{86}, core::CodeKind::sass});
  auto misses = plan::check_targets(ampere, {gpu("A100", 80)}, h.nvcc);
  ASSERT_FALSE(misses);
  EXPECT_TRUE(misses.error().usage);
  EXPECT_TRUE(plan::check_targets(ampere, {gpu("RTX 3090", 86)}, h.nvcc));
  EXPECT_FALSE(plan::check_targets(core::TargetSet{}, {}, h.nvcc));
}
