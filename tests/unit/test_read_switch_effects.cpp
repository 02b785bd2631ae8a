// Switches that are no CUDA gate, classified by what they do (issue 32), not left "unclassified":
// other backends' arms and settings, optional libraries, folders of a dependency, Ninja, job counts.
// Each fixture is written for kiln and names the public project and commit it reproduces
// (tests/fixtures/projects/<name>/SOURCE).
#include <gtest/gtest.h>

#include "knob_fixtures.hpp"

#include <map>

#include "io/environment.hpp"
#include "plan/plan_report.hpp"
#include "read/project_knobs.hpp"

using namespace kiln;

namespace {

using kiln::testing::Decided;
using kiln::testing::decided;
using kiln::testing::find;
using kiln::testing::plan_for;
using kiln::testing::plan_in;

TEST(SwitchEffects, OtherBackendsArmsAreLeftOffForACudaBuild) {
  // mmcv a8073c74: one chain picks DIOPI, CUDA, MLU, MPS, NPU or CPU; a CUDA build sets none of the
  // others (their defaults are already off), and what DIOPI's arm reads is never reached.
  read::KnobContext ctx;
  ctx.jobs = 2;
  auto kp = plan_for("mmcv-backends", ctx);
  std::map<std::string, Decided> want = {
      {"MMCV_WITH_DIOPI", {"other-backend", "", "", "setup.py:13"}},
      {"DIPU_ROOT", {"other-backend", "", "", "setup.py:15"}},
      {"FORCE_CUDA", {"cuda-enable", "1", "kiln", "setup.py:17"}},
      {"FORCE_MLU", {"other-backend", "", "", "setup.py:20"}},
      {"FORCE_MPS", {"other-backend", "", "", "setup.py:23"}},
      {"FORCE_NPU", {"other-backend", "", "", "setup.py:26"}},
  };
  EXPECT_EQ(decided(kp), want);
  // DIOPI's arm comes before CUDA's: set on, it is why no CUDA was compiled; MLU's comes after.
  io::FakeEnvironment env;
  env.set("MMCV_WITH_DIOPI", "1");
  env.set("FORCE_MLU", "1");
  auto why = read::cuda_gate_reason(kp, env, read::BuildMachine{true, "H100"});
  EXPECT_NE(why.find("MMCV_WITH_DIOPI was '1' (from the environment, setup.py:13)"), std::string::npos) << why;
  EXPECT_NE(why.find("unset MMCV_WITH_DIOPI"), std::string::npos) << why;
  EXPECT_EQ(why.find("FORCE_MLU"), std::string::npos) << why;
}

TEST(SwitchEffects, ASettingReadOnlyInAnotherVendorsBranchIsUnreached) {
  // Torch-FL 1adbc974: FLAGOS_METAX_BOXING is read under `if ACCELERATOR == "metax":`; kiln picks cuda.
  std::map<std::string, Decided> want = {
      {"ACCELERATOR", {"accelerator", "cuda", "kiln", "setup.py:8"}},
      {"FLAGOS_METAX_BOXING", {"other-backend", "", "", "setup.py:14"}},
  };
  auto kp = plan_for("torch-fl-vendor");
  EXPECT_EQ(decided(kp), want);
  const auto* k = find(kp, "FLAGOS_METAX_BOXING");
  ASSERT_TRUE(k);
  EXPECT_EQ(k->gate_at, "setup.py:13 if BACKEND == \"metax\":");
}

TEST(SwitchEffects, OptionalLibraryIsLeftAtTheProjectsDefaultAndNamed) {
  // pytorch_sparse 91feaa5e: WITH_METIS links libmetis (README.md:88-90: install METIS, then WITH_METIS=1).
  read::KnobContext ctx;
  ctx.has_library = [](const std::string& name) -> std::optional<bool> { return name == "metis"; };
  auto kp = plan_for("pytorch_sparse", ctx);
  std::map<std::string, Decided> want = {
      {"WITH_METIS", {"optional-library", "", "", "setup.py:8"}},
      {"WITH_MTMETIS", {"optional-library", "", "", "setup.py:9"}},
  };
  EXPECT_EQ(decided(kp), want);
  const auto* k = find(kp, "WITH_METIS");
  ASSERT_TRUE(k);
  EXPECT_NE(k->reason.find("on, it links libmetis (found here): --knob WITH_METIS=1"), std::string::npos) << k->reason;
  k = find(kp, "WITH_MTMETIS");
  ASSERT_TRUE(k);
  EXPECT_NE(k->reason.find("libmtmetis (not found here), libwildriver (not found here)"), std::string::npos)
      << k->reason;
}

TEST(SwitchEffects, FolderOfADependencyIsNamedAndLeftUnset) {
  // kaolin d52da9f8: CUB_HOME goes on the include path of its CUDAExtension when it is set.
  std::map<std::string, Decided> want = {{"CUB_HOME", {"dependency-path", "", "", "setup.py:13"}}};
  auto kp = plan_for("kaolin");
  EXPECT_EQ(decided(kp), want);
  EXPECT_EQ(find(kp, "CUB_HOME")->gate_at.substr(0, 12), "setup.py:19 ");
}

TEST(SwitchEffects, ExtensionsAddedAfterAnEarlyReturnAreOptional) {
  // gsplat 90d7b4b3: `if not BUILD_EXPERIMENTAL: return [main]` before more CUDAExtensions; the main one
  // is built either way, so the switch is an optional part, left at the project's default (on).
  std::map<std::string, Decided> want = {{"BUILD_EXPERIMENTAL", {"optional-extension", "", "", "setup.py:8"}}};
  auto kp = plan_for("gsplat");
  EXPECT_EQ(decided(kp), want);
  // Its value in this build is the project's default, "1": the plan says it is on, never "left off".
  const auto* k = find(kp, "BUILD_EXPERIMENTAL");
  ASSERT_TRUE(k);
  EXPECT_TRUE(read::default_opens_gate(*k));
  EXPECT_NE(
      k->reason.find("on by default (BUILD_EXPERIMENTAL=1), so it is built; --knob BUILD_EXPERIMENTAL=0 leaves it out"),
      std::string::npos)
      << k->reason;
  const std::string text = plan::knobs_to_text(kp);
  EXPECT_NE(text.find("note: optional extensions left on (its default), each adding one beside those the project "
                      "builds (--knob NAME=0 leaves it out): BUILD_EXPERIMENTAL (setup.py:8)\n"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("left off"), std::string::npos) << text;
}

TEST(SwitchEffects, OptionalExtensionsOffByDefaultStayOnTheLeftOffLine) {
  // apex 6424da3b: the contrib switches default to off; the line keeps saying so.
  auto kp = plan_for("apex-contrib");
  const auto* k = find(kp, "APEX_FAST_BOTTLENECK");
  ASSERT_TRUE(k);
  EXPECT_FALSE(read::default_opens_gate(*k));
  EXPECT_NE(k->reason.find("off by default"), std::string::npos) << k->reason;
  EXPECT_NE(k->reason.find("--knob APEX_FAST_BOTTLENECK=1 builds it"), std::string::npos) << k->reason;
  EXPECT_NE(plan::knobs_to_text(kp).find("note: optional extensions left off"), std::string::npos);
}

TEST(SwitchEffects, NinjaStaysOn) {
  // chamferdist ee753899 (pytorch3d 9381c401 the same): use_ninja=False in the branch NO_NINJA=1 takes.
  std::map<std::string, Decided> want = {{"NO_NINJA", {"no-ninja", "0", "kiln", "setup.py:9"}}};
  EXPECT_EQ(decided(plan_for("chamferdist")), want);
}

TEST(SwitchEffects, TheProjectsOwnJobCountComesFromTheJobPlan) {
  // NATTEN 8c8729f4: NATTEN_N_WORKERS reaches `cmake --build ... -j`; its computed default no longer
  // matters (kiln sets it), and LINEINFO only becomes a -D flag.
  read::KnobContext ctx;
  ctx.jobs = 6;
  auto kp = plan_for("natten-workers", ctx);
  std::map<std::string, Decided> want = {
      {"NATTEN_N_WORKERS", {"jobs", "6", "kiln", "setup.py:12"}},
      {"NATTEN_BUILD_WITH_LINEINFO", {"compile-flags", "", "", "setup.py:15"}},
  };
  EXPECT_EQ(decided(kp), want);
  EXPECT_TRUE(kp.undecided.empty()) << kp.undecided.front();
}

TEST(SwitchEffects, SwitchesThatOnlyPackageAreNamedPackagingOnly) {
  // Torch-FL 1adbc974: FLAGOS_SKIP_CUDA_ASSETS returns early from a function that only copies .so files
  // and drops runtime wheels from install_requires; FLAGOS_CUDA_ASSETS_DIR is the folder copied from;
  // FLAGOS_WHEEL_LOCAL ends in the version. VENDOR_SKIP_PREPARE's early return also skips a command:
  // still a switch kiln cannot classify.
  auto kp = plan_for("torch-fl-assets");
  std::map<std::string, Decided> want = {
      {"FLAGOS_SKIP_CUDA_ASSETS", {"packaging", "", "", "setup.py:16"}},
      {"FLAGOS_CUDA_ASSETS_DIR", {"packaging", "", "", "setup.py:18"}},
      {"FLAGOS_WHEEL_LOCAL", {"packaging", "", "", "setup.py:55"}},
      {"VENDOR_SKIP_PREPARE", {"unknown", "", "", "setup.py:33"}},
  };
  EXPECT_EQ(decided(kp), want);
  // The computed default of the assets folder no longer matters: nothing of the build reads it.
  EXPECT_TRUE(kp.undecided.empty()) << kp.undecided.front();
  const std::string text = plan::knobs_to_text(kp);
  const auto line = [&](const std::string& start) {
    const auto at = text.find(start);
    return at == std::string::npos ? std::string() : text.substr(at, text.find('\n', at) - at);
  };
  const std::string packaging = line("note: packaging only");
  for (const char* k : {"FLAGOS_SKIP_CUDA_ASSETS (setup.py:16)", "FLAGOS_CUDA_ASSETS_DIR (setup.py:18)",
                        "FLAGOS_WHEEL_LOCAL (setup.py:55)"})
    EXPECT_NE(packaging.find(k), std::string::npos) << text;
  EXPECT_EQ(line("note: switches kiln cannot classify"),
            "note: switches kiln cannot classify, left as they are: VENDOR_SKIP_PREPARE at setup.py:33")
      << text;
}

TEST(SwitchEffects, ArchitectureSwitchesFollowThePlannedTargets) {
  // FlashMLA 9241ae3e: FLASH_MLA_DISABLE_SM100 / _SM90 each keep one -gencode pair out; an H100 plan turns
  // sm_100's off (nvcc 12.8 and older even assert it) and leaves sm_90's in. Their lines are no
  // hard-coded architectures: the switches kiln sets drive them.
  read::KnobContext ctx;
  ctx.sass = {90};
  auto kp = plan_for("flashmla", ctx);
  std::map<std::string, Decided> want = {
      {"FLASH_MLA_DISABLE_SM100", {"arch-switch", "1", "kiln", "setup.py:14"}},
      {"FLASH_MLA_DISABLE_SM90", {"arch-switch", "", "", "setup.py:15"}},
  };
  EXPECT_EQ(decided(kp), want);
  EXPECT_EQ(kp.hardcoded_archs, "");
  const auto* k = find(kp, "FLASH_MLA_DISABLE_SM100");
  ASSERT_TRUE(k);
  EXPECT_NE(k->reason.find("sm_100 is not planned: its code is left out"), std::string::npos) << k->reason;
  // Planned for Hopper and Blackwell, both stay in; for Blackwell alone, sm_90's goes.
  ctx.sass = {90, 100};
  EXPECT_EQ(decided(plan_for("flashmla", ctx))["FLASH_MLA_DISABLE_SM100"].value, "");
  ctx.sass = {100};
  auto bw = decided(plan_for("flashmla", ctx));
  EXPECT_EQ(bw["FLASH_MLA_DISABLE_SM100"].value, "");
  EXPECT_EQ(bw["FLASH_MLA_DISABLE_SM90"].value, "1");
}

TEST(SwitchEffects, ExtensionsBuiltAtOnceAreOneAtATime) {
  // SageAttention d1a57a54: EXT_PARALLEL (else MAX_JOBS) becomes build_ext's parallel, each extension
  // with its own MAX_JOBS compiles: kiln sets 1 beside its MAX_JOBS, so the job plan bounds them.
  read::KnobContext ctx;
  ctx.jobs = 6;
  std::map<std::string, Decided> want = {
      {"EXT_PARALLEL", {"extension-parallel", "1", "kiln", "setup.py:13"}},
      {"MAX_JOBS", {"jobs", "6", "kiln", "setup.py:15"}},
  };
  auto kp = plan_for("sageattention", ctx);
  EXPECT_EQ(decided(kp), want);
  EXPECT_EQ(find(kp, "EXT_PARALLEL")->gate_at, "setup.py:23 self.parallel = at_once");
}

TEST(SwitchEffects, AnOptOutOfOneExtensionBesideOthersKeepsTheProjectsDefault) {
  // AutoGPTQ 9f7d3707: DISABLE_QIGEN ("1" by default) keeps the QIGen C++ extension (-march=native, a code
  // generator run first) out beside the CUDA extensions BUILD_CUDA_EXT makes; kiln no longer sets it to 0.
  // COMPILE_MARLIN adds Marlin beside them, on by default.
  std::map<std::string, Decided> want = {
      {"BUILD_CUDA_EXT", {"cuda-enable", "1", "kiln", "setup.py:7"}},
      {"DISABLE_QIGEN", {"optional-extension", "", "", "setup.py:8"}},
      {"COMPILE_MARLIN", {"optional-extension", "", "", "setup.py:9"}},
      {"ROCM_VERSION", {"cuda-skip", "", "", "setup.py:10"}},
  };
  auto kp = plan_for("autogptq");
  EXPECT_EQ(decided(kp), want);
  const auto* k = find(kp, "DISABLE_QIGEN");
  ASSERT_TRUE(k);
  EXPECT_NE(k->reason.find("off by default (DISABLE_QIGEN=1); --knob DISABLE_QIGEN=0 builds it"), std::string::npos)
      << k->reason;
  const std::string text = plan::knobs_to_text(kp);
  EXPECT_NE(text.find("DISABLE_QIGEN (setup.py:8; --knob DISABLE_QIGEN=0 builds it)"), std::string::npos) << text;
  EXPECT_NE(text.find("left on (its default), each adding one beside those the project builds (--knob NAME=0 leaves "
                      "it out): COMPILE_MARLIN (setup.py:9)"),
            std::string::npos)
      << text;
  // Against a CPU-only torch BUILD_CUDA_EXT is left, but on by default: QIGen is still the optional part.
  read::KnobContext cpu;
  cpu.torch_cpu_only = true;
  auto on_cpu = decided(plan_for("autogptq", cpu));
  EXPECT_EQ(on_cpu["BUILD_CUDA_EXT"], (Decided{"cuda-enable", "", "", "setup.py:7"}));
  EXPECT_EQ(on_cpu["DISABLE_QIGEN"], (Decided{"optional-extension", "", "", "setup.py:8"}));
}

TEST(SwitchEffects, AFlagOnlyTheUnsetArchitectureListLeavesIsNotHardCoded) {
  // grouped_gemm ebeae0bb: --generate-code is added only from the GPU's capability, which the project
  // reads only where TORCH_CUDA_ARCH_LIST (set by kiln) is unset. GROUPED_GEMM_CUTLASS only adds a define.
  auto kp = plan_for("grouped-gemm");
  EXPECT_EQ(kp.hardcoded_archs, "");
  std::map<std::string, Decided> want = {{"TORCH_CUDA_ARCH_LIST", {"kiln-sets", "", "", "setup.py:9"}},
                                         {"GROUPED_GEMM_CUTLASS", {"compile-flags", "", "", "setup.py:18"}}};
  EXPECT_EQ(decided(kp), want);
}

}  // namespace
