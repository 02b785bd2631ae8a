// Switches classified by what they do, read from setup.py's data flow (data/read_setup.py's Effects)
// and not from their names: fixtures written for kiln, each reproducing a public project kiln's
// table did not know (tests/fixtures/projects/<name>/SOURCE names repository and commit), with the
// value that project's README asks for; and why a build compiled no CUDA, told from the gate that
// was false in that build and what kiln knows of the machine.
#include <gtest/gtest.h>

#include "knob_fixtures.hpp"

#include <filesystem>
#include <fstream>
#include <map>

#include "fakes/environment.hpp"
#include "io/environment.hpp"
#include "io/fs.hpp"
#include "io/process.hpp"
#include "read/project_kind.hpp"
#include "read/project_knobs.hpp"
#include "read/setup_py_ast.hpp"

using namespace kiln;

namespace {

using kiln::testing::Decided;
using kiln::testing::decided;
using kiln::testing::find;
using kiln::testing::plan_for;
using kiln::testing::plan_in;

// A setup.py written inline, for the patterns no fixture folder needs.
struct Scratch {
  std::filesystem::path dir;
  explicit Scratch(const std::string& setup_py) {
    dir = std::filesystem::temp_directory_path() / ("kiln-effects-" + std::to_string(::getpid()) + "-" +
                                                    ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir);
    std::ofstream(dir / "setup.py") << setup_py;
  }
  ~Scratch() { std::filesystem::remove_all(dir); }
};

TEST(KnobEffects, AllowErrorsSwitchIsTurnedOffSoAFailedCompileFails) {
  // sam2 INSTALL.md:32: SAM2_BUILD_ALLOW_ERRORS=0 makes a failed build fail; its CUDA switch is on by default.
  auto kp = plan_for("sam2");
  std::map<std::string, Decided> want = {
      {"SAM2_BUILD_CUDA", {"cuda-enable", "1", "kiln", "setup.py:7"}},
      {"SAM2_BUILD_ALLOW_ERRORS", {"allow-errors", "0", "kiln", "setup.py:8"}},
  };
  EXPECT_EQ(decided(kp), want);
  const auto* k = find(kp, "SAM2_BUILD_ALLOW_ERRORS");
  ASSERT_TRUE(k);
  EXPECT_EQ(k->gate_at.substr(0, 12), "setup.py:19 ") << k->gate_at;  // the `if` in the except handler
}

TEST(KnobEffects, OptInThatDecidesWhetherAnyExtensionIsMade) {
  // ColossalAI README.md:492: BUILD_EXT=1 pip install colossalai. Its name is in no role of the table.
  auto kp = plan_for("colossalai");
  std::map<std::string, Decided> want = {{"BUILD_EXT", {"build-opt-in", "1", "kiln", "setup.py:14"}}};
  EXPECT_EQ(decided(kp), want);
  // A CPU plan compiles no CUDA: the opt-in is left as it is, and says so.
  read::KnobContext cpu;
  cpu.cuda = false;
  EXPECT_EQ(decided(plan_for("colossalai", cpu))["BUILD_EXT"].value, "");
}

TEST(KnobEffects, AnOptInThatAddsOneExtensionBesideTheCoreIsLeftOff) {
  // apex 6424da3b: its README installs with --cpp_ext --cuda_ext; each contrib switch adds one more
  // extension. With every one on, kiln's build on the GPU host needed the empty cudnn-frontend
  // submodule and failed after two minutes.
  auto kp = plan_for("apex-contrib");
  std::map<std::string, Decided> want = {
      {"APEX_CPP_EXT", {"cpp-enable", "1", "kiln", "setup.py:16"}},
      {"APEX_CUDA_EXT", {"cuda-enable", "1", "kiln", "setup.py:18"}},
      {"APEX_FAST_BOTTLENECK", {"optional-extension", "", "", "setup.py:20"}},
      {"APEX_PEER_MEMORY", {"optional-extension", "", "", "setup.py:22"}},
      {"APEX_XENTROPY", {"optional-extension", "", "", "setup.py:24"}},
  };
  EXPECT_EQ(decided(kp), want);
  const auto* k = find(kp, "APEX_FAST_BOTTLENECK");
  ASSERT_TRUE(k);
  EXPECT_NE(k->reason.find("with APEX_CPP_EXT, APEX_CUDA_EXT"), std::string::npos) << k->reason;
  EXPECT_NE(k->reason.find("--knob APEX_FAST_BOTTLENECK=1 builds it"), std::string::npos) << k->reason;
  EXPECT_FALSE(k->gate());  // never the cause of a build that compiled no CUDA
  // The user's --knob still builds one.
  read::KnobContext ctx;
  ctx.overrides["APEX_XENTROPY"] = "1";
  EXPECT_EQ(decided(plan_for("apex-contrib", ctx))["APEX_XENTROPY"].value, "1");
  // So does the user's environment, and the reason says it is theirs (issue 33: it was overwritten
  // with kiln's "left off" reason while the value stayed the user's).
  io::FakeEnvironment env;
  env.set("APEX_PEER_MEMORY", "1");
  read::KnobContext with_env;
  with_env.env = &env;
  const auto kp_env = plan_for("apex-contrib", with_env);
  const auto* mine = find(kp_env, "APEX_PEER_MEMORY");
  ASSERT_TRUE(mine);
  EXPECT_EQ(mine->value, "1");
  EXPECT_EQ(mine->origin, read::KnobOrigin::environment);
  EXPECT_EQ(mine->reason.rfind("already set in the environment, which wins; kiln would leave it unset: ", 0), 0u)
      << mine->reason;
  const auto kp_knob = plan_for("apex-contrib", ctx);
  const auto* given = find(kp_knob, "APEX_XENTROPY");
  ASSERT_TRUE(given);
  EXPECT_EQ(given->reason.rfind("given with --knob; kiln would leave it unset: ", 0), 0u) << given->reason;
}

TEST(KnobEffects, AnOptInIsAGateWhenNothingIsBuiltWithoutIt) {
  // Beside an extension made under no switch, an opt-in only adds; when its branch (or the
  // function it calls) makes every extension, nothing is built without it.
  Scratch extra(
      "import os\nfrom setuptools import setup\nfrom torch.utils.cpp_extension import CUDAExtension\n"
      "ext_modules = [CUDAExtension('core', ['core.cu'])]\n"
      "if os.environ.get('WITH_EXTRAS', '0') == '1':\n"
      "    ext_modules.append(CUDAExtension('extra', ['extra.cu']))\n"
      "setup(name='p', ext_modules=ext_modules)\n");
  EXPECT_EQ(decided(plan_in(extra.dir.string()))["WITH_EXTRAS"].role, "optional-extension");
  Scratch gate(
      "import os\nfrom setuptools import setup\nfrom torch.utils.cpp_extension import CUDAExtension\n"
      "def get_extensions():\n"
      "    return [CUDAExtension('a', ['a.cu']), CUDAExtension('b', ['b.cu'])]\n"
      "ext_modules = []\n"
      "if os.environ.get('WITH_EXTRAS', '0') == '1':\n"
      "    ext_modules = get_extensions()\n"
      "setup(name='p', ext_modules=ext_modules)\n");
  EXPECT_EQ(decided(plan_in(gate.dir.string()))["WITH_EXTRAS"], (Decided{"build-opt-in", "1", "kiln", "setup.py:7"}));
}

TEST(KnobEffects, JitSwitchesAreSetForAnAheadOfTimeBuildWhicheverWayTheyPoint) {
  // spconv README.md:194: SPCONV_DISABLE_JIT="1"; kernel_tools README.md:81: USE_KERNEL_TOOLS_JIT=0.
  std::map<std::string, Decided> spconv = {{"SPCONV_DISABLE_JIT", {"ahead-of-time", "1", "kiln", "setup.py:7"}}};
  EXPECT_EQ(decided(plan_for("spconv")), spconv);
  std::map<std::string, Decided> tools = {{"USE_KERNEL_TOOLS_JIT", {"ahead-of-time", "0", "kiln", "setup.py:8"}}};
  EXPECT_EQ(decided(plan_for("kernel-tools")), tools);
}

TEST(KnobEffects, ArchitectureListInTheSpellingItsCodeParses) {
  // tiny-cuda-nn: int() of each entry, split on "," after ";" becomes ",": numbers.
  read::KnobContext two;
  two.sass = {90, 100};
  std::map<std::string, Decided> tcnn = {{"TCNN_CUDA_ARCHITECTURES", {"arch-list", "90", "kiln", "setup.py:10"}}};
  auto kp = plan_for("tiny-cuda-nn");
  EXPECT_EQ(decided(kp), tcnn);
  EXPECT_EQ(decided(plan_for("tiny-cuda-nn", two))["TCNN_CUDA_ARCHITECTURES"].value, "90;100");
  // Its -gencode f-string is what that list drives: no "hard-codes nvcc architectures" note.
  EXPECT_EQ(kp.hardcoded_archs, "");
  // flashinfer: space-separated, split("."), a variant letter read (README.md:167 "... 9.0a 10.0a ...").
  read::KnobContext hopper;
  hopper.sass = {90, 100};
  hopper.sass_suffix = {"a", "a"};
  EXPECT_EQ(decided(plan_for("flashinfer", hopper))["FLASHINFER_CUDA_ARCH_LIST"],
            (Decided{"arch-list", "9.0a 10.0a", "kiln", "build_helpers/targets.py:9"}));
  read::KnobContext plain;
  plain.sass = {90};
  plain.sass_suffix = {""};
  EXPECT_EQ(decided(plan_for("flashinfer", plain))["FLASHINFER_CUDA_ARCH_LIST"].value, "9.0");
  // tiny-cuda-nn reads no variant letter: a 90a target is spelt 90 there.
  EXPECT_EQ(decided(plan_for("tiny-cuda-nn", hopper))["TCNN_CUDA_ARCHITECTURES"].value, "90;100");
}

TEST(KnobEffects, ArchitectureListTestedForBeingSetIsStillTheList) {
  // NATTEN: NATTEN_CUDA_ARCH="9.0" (docs/install.md:226); compared with "" it also decides whether the
  // wheel has its native library, which a GPU-less build host never got: kiln left it unclassified.
  // float() of each entry: dotted.
  read::KnobContext two;
  two.sass = {90, 100};
  std::map<std::string, Decided> natten = {{"NATTEN_CUDA_ARCH", {"arch-list", "9.0", "kiln", "setup.py:10"}}};
  EXPECT_EQ(decided(plan_for("natten")), natten);
  EXPECT_EQ(decided(plan_for("natten", two))["NATTEN_CUDA_ARCH"].value, "9.0;10.0");
  // fused-ssim: `if wanted:` before the split; f"-gencode=arch=compute_{entry}": numbers. The
  // fallback in the else is what the list replaces, not a hard-coded list.
  std::map<std::string, Decided> ssim = {{"CUDA_ARCHITECTURES", {"arch-list", "90", "kiln", "setup.py:12"}}};
  auto kp = plan_for("fused-ssim", two);
  ssim["CUDA_ARCHITECTURES"].value = "90;100";
  EXPECT_EQ(decided(kp), ssim);
  EXPECT_EQ(kp.hardcoded_archs, "");
}

TEST(KnobEffects, GencodeUnderTheProjectsOwnListIsNotHardCoded) {
  // flash-attention setup.py at 0251105a2fb19d2957484b7f023cd8c115286ced: `if "80" in cuda_archs():`
  // around its -gencode appends (:180-200), the list read from FLASH_ATTN_CUDA_ARCHS (:74).
  Scratch p(
      "import os\n"
      "from setuptools import setup\n"
      "from torch.utils.cpp_extension import CUDAExtension\n"
      "def archs():\n    return os.getenv('FLASH_ATTN_CUDA_ARCHS', '80;90').split(';')\n"
      "cc_flag = []\n"
      "if '80' in archs():\n    cc_flag.append('-gencode')\n    cc_flag.append('arch=compute_80,code=sm_80')\n"
      "setup(name='x', ext_modules=[CUDAExtension('x', ['x.cu'], extra_compile_args={'nvcc': cc_flag})])\n");
  auto kp = plan_in(p.dir.string());
  EXPECT_EQ(kp.hardcoded_archs, "");
  // The same line outside any test of the list is the project's own: still said.
  Scratch q(
      "from setuptools import setup\n"
      "from torch.utils.cpp_extension import CUDAExtension\n"
      "cc_flag = ['-gencode', 'arch=compute_80,code=sm_80']\n"
      "setup(name='x', ext_modules=[CUDAExtension('x', ['x.cu'], extra_compile_args={'nvcc': cc_flag})])\n");
  EXPECT_EQ(plan_in(q.dir.string()).hardcoded_archs.substr(0, 11), "setup.py:3 ");
}

TEST(KnobEffects, ArchFlagWithTheArchitectureWrittenInIsHardCoded) {
  // torch-points3d/torch-points-kernels 40153193 setup.py:44 nvcc_flags += ["-arch=sm_35", ...]: CUDA 13
  // cannot build sm_35, and kiln plan named no hard-coded architecture. Written here.
  Scratch p(
      "from setuptools import setup\n"
      "from torch.utils.cpp_extension import CUDAExtension\n"
      "flags = ['--expt-relaxed-constexpr', '-arch=sm_35']\n"
      "setup(name='x', ext_modules=[CUDAExtension('x', ['x.cu'], extra_compile_args={'nvcc': flags})])\n");
  EXPECT_EQ(plan_in(p.dir.string()).hardcoded_archs.substr(0, 11), "setup.py:3 ");
  // -arch= with the project's own list after it is no hard-coded architecture.
  Scratch q(
      "import os\n"
      "from setuptools import setup\n"
      "from torch.utils.cpp_extension import CUDAExtension\n"
      "flags = ['-arch=' + os.environ.get('MY_ARCH', 'native')]\n"
      "setup(name='x', ext_modules=[CUDAExtension('x', ['x.cu'], extra_compile_args={'nvcc': flags})])\n");
  EXPECT_EQ(plan_in(q.dir.string()).hardcoded_archs, "");
}

TEST(KnobEffects, TorchArchListOverwrittenBySetupPyIsHardCoded) {
  // erikwijmans/Pointnet2_PyTorch b5ceb6d9 pointnet2_ops_lib/setup.py:19 sets TORCH_CUDA_ARCH_LIST to
  // its own list (3.7+PTX ... 7.5: nothing CUDA 13 builds, nothing native on an H100) right before
  // setup(); kiln's plan said nothing of it. Written here.
  const std::string ext = "setup(name='x', ext_modules=[CUDAExtension('x', ['x.cu'])])\n";
  Scratch p(
      "import os\n"
      "from setuptools import setup\n"
      "from torch.utils.cpp_extension import CUDAExtension\n"
      "os.environ['TORCH_CUDA_ARCH_LIST'] = '3.7+PTX;5.0;7.5'\n" +
      ext);
  EXPECT_EQ(plan_in(p.dir.string()).hardcoded_archs.substr(0, 11), "setup.py:4 ");
  // Filled only where it is unset (apex 6424da3b setup.py:128-131, kaolin d52da9f8 setup.py:78-96):
  // kiln's list stays; and emptied (tiny-cuda-nn) is no list at all.
  Scratch q(
      "import os\n"
      "from setuptools import setup\n"
      "from torch.utils.cpp_extension import CUDAExtension\n"
      "if os.getenv('TORCH_CUDA_ARCH_LIST') is None:\n    os.environ['TORCH_CUDA_ARCH_LIST'] = '8.0;9.0'\n"
      "os.environ['TORCH_CUDA_ARCH_LIST'] = ''\n" +
      ext);
  EXPECT_EQ(plan_in(q.dir.string()).hardcoded_archs, "");
}

TEST(KnobEffects, AcceleratorChosenAmongTheProjectsBackends) {
  // Torch-FL docs/getting-started/installation.md:7: ACCELERATOR=cuda (its default).
  std::map<std::string, Decided> fl = {{"ACCELERATOR", {"accelerator", "cuda", "kiln", "setup.py:8"}}};
  EXPECT_EQ(decided(plan_for("torch-fl")), fl);
  // torchmd-net: startswith("cu"); its wheels and README use cu118 / cu126: torch's CUDA in that form.
  read::KnobContext cu130;
  cu130.torch_cuda = "13.0";
  std::map<std::string, Decided> md = {{"ACCELERATOR", {"accelerator", "cu130", "kiln", "setup.py:9"}}};
  EXPECT_EQ(decided(plan_for("torchmd-net", cu130)), md);
  EXPECT_EQ(decided(plan_for("torchmd-net"))["ACCELERATOR"].value, "cuda");  // torch's CUDA unknown
}

TEST(KnobEffects, TheEffectWinsOverANameThatSaysOtherwise) {
  // Named like a skip switch, but the extension is made only when it is set: an opt-in.
  Scratch p(
      "import os\n"
      "from setuptools import setup\n"
      "from torch.utils.cpp_extension import CUDAExtension\n"
      "RUN_BUILD = os.getenv('X_NO_CUDA', '0') == '1'\n"
      "ext_modules = []\n"
      "if RUN_BUILD:\n    ext_modules.append(CUDAExtension('x', ['x.cu']))\n"
      "setup(name='x', ext_modules=ext_modules)\n");
  std::map<std::string, Decided> want = {{"X_NO_CUDA", {"build-opt-in", "1", "kiln", "setup.py:4"}}};
  EXPECT_EQ(decided(plan_in(p.dir.string())), want);
}

TEST(KnobEffects, CudaLessBuildIsExplainedByTheGateThatWasFalse) {
  // The case: an opt-in left at its default (here by --no-knobs), on a machine with a GPU.
  Scratch p(
      "import os\n"
      "import torch\n"
      "from setuptools import setup\n"
      "from torch.utils.cpp_extension import CUDAExtension, CppExtension\n"
      "RUN_BUILD = os.getenv('BUILD_X', '0') == '1'\n"
      "ext_modules = []\n"
      "if RUN_BUILD:\n"
      "    if torch.cuda.is_available():\n"
      "        ext_modules.append(CUDAExtension('x', ['x.cu']))\n"
      "setup(name='x', ext_modules=ext_modules)\n");
  read::KnobContext ctx;
  ctx.no_knobs = true;
  auto kp = plan_in(p.dir.string(), ctx);
  io::FakeEnvironment env;
  read::BuildMachine h100{true, "NVIDIA H100 80GB HBM3"};
  auto why = read::cuda_gate_reason(kp, env, h100);
  EXPECT_NE(why.find("BUILD_X was '0' (the project's default, setup.py:5)"), std::string::npos) << why;
  EXPECT_NE(why.find("--knob BUILD_X=1"), std::string::npos) << why;
  EXPECT_NE(why.find("setup.py:7 if RUN_BUILD:"), std::string::npos) << why;
  EXPECT_EQ(why.find("build on a machine with a GPU"), std::string::npos) << why;  // it has one
  // With the opt-in on, the probe is all that is left: on this machine it was true, and kiln says so.
  env.set("BUILD_X", "1");
  why = read::cuda_gate_reason(kp, env, h100);
  EXPECT_EQ(why.find("BUILD_X was"), std::string::npos) << why;
  EXPECT_NE(why.find("was true here (NVIDIA H100 80GB HBM3 is on this machine)"), std::string::npos) << why;
  // Where the driver lists no GPU, the probe is the gate that was false.
  why = read::cuda_gate_reason(kp, env, read::BuildMachine{false, ""});
  EXPECT_NE(why.find("this machine has none"), std::string::npos) << why;
}

TEST(KnobEffects, ASwitchBesideTheGpuProbeIsNoCauseWhereTheGpuIsSeen) {
  // mmcv: `torch.cuda.is_available() or os.getenv('FORCE_CUDA', '0') == '1'` picks CUDAExtension.
  read::KnobContext ctx;
  ctx.no_knobs = true;
  auto kp = plan_for("mmcv", ctx);
  io::FakeEnvironment env;
  auto why = read::cuda_gate_reason(kp, env, read::BuildMachine{true, "H100"});
  EXPECT_EQ(why.find("FORCE_CUDA was"), std::string::npos) << why;
  why = read::cuda_gate_reason(kp, env, read::BuildMachine{false, ""});
  EXPECT_NE(why.find("FORCE_CUDA was '0' (the project's default, setup.py:17)"), std::string::npos) << why;
  EXPECT_NE(why.find("--knob FORCE_CUDA=1"), std::string::npos) << why;
}

TEST(KnobEffects, SwallowedErrorIsNamedAsTheLikelyCause) {
  read::KnobContext ctx;
  ctx.no_knobs = true;
  auto kp = plan_for("sam2", ctx);
  io::FakeEnvironment env;
  auto why = read::cuda_gate_reason(kp, env, read::BuildMachine{true, "H100"});
  EXPECT_NE(why.find("SAM2_BUILD_ALLOW_ERRORS was '1'"), std::string::npos) << why;
  EXPECT_NE(why.find("--knob SAM2_BUILD_ALLOW_ERRORS=0"), std::string::npos) << why;
  EXPECT_EQ(why.find("SAM2_BUILD_CUDA was"), std::string::npos) << why;  // on by default: not a cause
}

}  // namespace

// xformers (tests/fixtures/projects/xformers/SOURCE): switches kiln once left unclassified, or read as
// an opt-in and a CUDA skip, each classified by what it does; its README asks for none of them.
TEST(KnobEffects, WhatLeavesTheCudaBuildAsItIsIsNamedNotUnclassified) {
  auto kp = plan_for("xformers");
  std::map<std::string, Decided> want = {
      {"FORCE_CUDA", {"cuda-enable", "1", "kiln", "setup.py:30"}},
      // The ROCm branch after the CUDA one (`elif torch.version.hip and ...`): never reached here.
      {"XF_CK_ATTENTION", {"rocm-only", "", "", "setup.py:37"}},
      {"XF_HIP_ARCHS", {"rocm-only", "", "", "setup.py:40"}},
      {"XF_HIP_BF16_RTN", {"rocm-only", "", "", "setup.py:42"}},
      // A filter on the .cu sources: left unset, every source compiles.
      {"XF_SELECTIVE_BUILD", {"source-subset", "", "", "setup.py:25"}},
      // nvcc flags picked by value (--generate-line-info, --device-debug) or added (-DNDEBUG).
      {"XF_BUILD_TYPE", {"compile-flags", "", "", "setup.py:12"}},
      {"XF_DEBUG_ASSERTS", {"compile-flags", "", "", "setup.py:34"}},
      // The package version handed to setup().
      {"XF_RELEASE_VERSION", {"metadata", "", "", "setup.py:48"}},
  };
  EXPECT_EQ(decided(kp), want);
  const auto* rocm = find(kp, "XF_CK_ATTENTION");
  ASSERT_TRUE(rocm);
  EXPECT_EQ(rocm->gate_at.substr(0, 12), "setup.py:37 ") << rocm->gate_at;
  const auto* flags = find(kp, "XF_DEBUG_ASSERTS");
  ASSERT_TRUE(flags);
  EXPECT_NE(flags->reason.find("setup.py:35 nvcc.append(\"-DNDEBUG\")"), std::string::npos) << flags->reason;
  // None is a cause of a CUDA-less build, whatever its value was.
  io::FakeEnvironment env({{"XF_CK_ATTENTION", "0"}, {"XF_SELECTIVE_BUILD", "nothing"}, {"FORCE_CUDA", "1"}});
  const auto why = read::cuda_gate_reason(kp, env, read::BuildMachine{true, "H100"});
  EXPECT_EQ(why.find("XF_"), std::string::npos) << why;
  EXPECT_NE(why.find("kiln found no switch that was off"), std::string::npos) << why;
}

TEST(KnobEffects, ARocmProbeGatesOnlyItsOwnBranch) {
  // The probe through a name the project gives it, and in an `if` whose body is the ROCm build; the
  // `else` of that `if`, and a test that only negates the probe, are the CUDA build's.
  Scratch p(
      "import os\n"
      "import torch\n"
      "from setuptools import setup\n"
      "from torch.utils.cpp_extension import CppExtension, CUDAExtension\n"
      "IS_ROCM = torch.version.hip is not None\n"
      "ext = []\n"
      "if IS_ROCM:\n"
      "    archs = os.getenv('MY_GFX_TARGETS', 'gfx90a')\n"
      "else:\n"
      "    if os.getenv('MY_WITH_KERNELS', '0') == '1':\n"
      "        ext.append(CUDAExtension('k', ['k.cu']))\n"
      "if not torch.version.hip and os.getenv('MY_FAST_MATH') == '1':\n"
      "    ext.append(CUDAExtension('f', ['f.cu']))\n"
      "setup(name='x', ext_modules=ext)\n");
  auto kp = plan_in(p.dir.string());
  std::map<std::string, Decided> want = {
      {"MY_GFX_TARGETS", {"rocm-only", "", "", "setup.py:8"}},
      {"MY_WITH_KERNELS", {"build-opt-in", "1", "kiln", "setup.py:10"}},
      {"MY_FAST_MATH", {"build-opt-in", "1", "kiln", "setup.py:12"}},
  };
  EXPECT_EQ(decided(kp), want);
}
