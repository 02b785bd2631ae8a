// Planning against fake tools, GPUs and machines: no nvcc, GPU or CMake needed.
#include <gtest/gtest.h>

#include <sstream>

#include "fakes/process.hpp"
#include "fakes/fs.hpp"
#include "plan/ledger_place.hpp"
#include "plan/make_plan.hpp"
#include "test_support.hpp"

using namespace kiln;

namespace {

struct FakeGpus : probe::GpuQuery {
  probe::LocalGpus answer;
  probe::LocalGpus query() override { return answer; }
};

struct Harness : kiln::testing::FakeSeams {
  FakeGpus gpus;
  probe::MachineInfo machine;

  explicit Harness(
      const std::string& nvcc_list = "sm_75 sm_80 sm_86 sm_87 sm_88 sm_89 sm_90 sm_100 sm_110 sm_103 sm_120 sm_121") {
    env.set("PATH", "/usr/bin");
    fs.add_file("/proj/CMakeLists.txt", "project(x)");
    fs.add_file("/usr/bin/cmake", "", true);
    fs.add_file("/usr/bin/ninja", "", true);
    fs.add_file("/usr/bin/ccache", "", true);
    fs.add_file("/usr/local/cuda/bin/nvcc", "", true);
    proc.on("/usr/local/cuda/bin/nvcc --version", io::ran("Cuda compilation tools, release 13.0, V13.0.88\n"));
    proc.on("/usr/local/cuda/bin/nvcc --list-gpu-code", io::ran(nvcc_list));
    proc.on("/usr/local/cuda/bin/nvcc --list-gpu-arch", io::ran(""));
    machine.cores = 16;
    machine.mem_total = machine.mem_available = 64ULL << 30;
  }
  tl::expected<plan::Plan, plan::PlanError> plan(plan::BuildRequest r) {
    r.project_dir = "/proj";
    return plan::make_plan(r, seams, gpus, machine);
  }
};

std::string cmake_of(const plan::Plan& p) {
  std::string s;
  for (const auto& t : p.targets) s += (s.empty() ? "" : ";") + t.name();
  return s;
}

}  // namespace

TEST(Plan, GpusGiveOneNativeTargetPerComputeCapability) {
  Harness h;
  auto p = h.plan({.gpus = {"h100", "H100 PCIe", "a100", "RTX 4090"}});
  ASSERT_TRUE(p) << p.error().message;
  EXPECT_EQ(cmake_of(*p), "sm_80;sm_89;sm_90");
  EXPECT_EQ(p->arch_source, "--gpu");
  EXPECT_EQ(p->gpus.size(), 4u);
}

TEST(Plan, ArchsBeatGpusAndEnvironment) {
  Harness h;
  h.env.set("TORCH_CUDA_ARCH_LIST", "7.5");
  auto p = h.plan({.gpus = {"h100"}, .archs = "9.0+PTX"});
  ASSERT_TRUE(p) << p.error().message;
  EXPECT_EQ(cmake_of(*p), "sm_90;compute_90");
  EXPECT_EQ(p->arch_source, "--archs");
}

TEST(Plan, TorchCudaArchListIsReadWhenNothingElseIsGiven) {
  Harness h;
  h.env.set("TORCH_CUDA_ARCH_LIST", "8.6;9.0");
  auto p = h.plan({});
  ASSERT_TRUE(p) << p.error().message;
  EXPECT_EQ(cmake_of(*p), "sm_86;sm_90");
  EXPECT_EQ(p->arch_source, "TORCH_CUDA_ARCH_LIST");
}

TEST(Plan, LocalGpusThenDefault) {
  Harness h;
  h.gpus.answer.source = "nvml";
  h.gpus.answer.gpus = {probe::LocalGpu{0, "NVIDIA H100 80GB HBM3", 90, "580.1", 81559}};
  auto p = h.plan({});
  ASSERT_TRUE(p) << p.error().message;
  EXPECT_EQ(cmake_of(*p), "sm_90");
  EXPECT_EQ(p->arch_source, "local GPUs");

  Harness none;
  auto d = none.plan({});
  ASSERT_TRUE(d) << d.error().message;
  EXPECT_EQ(d->arch_source, "default");
  EXPECT_EQ(cmake_of(*d), "sm_80;sm_90;sm_100;sm_120;compute_120");
}

TEST(Plan, GpuNewerThanToolkitGetsSameMajorSassOrPtx) {
  Harness h("sm_75 sm_80 sm_86 sm_89 sm_90 sm_100 sm_120");  // an older nvcc without sm_103 / sm_121
  // GB10 (DGX Spark) comes only with an Arm CPU: planned for an aarch64 build.
  auto p = h.plan({.gpus = {"B300", "GB10"}, .platform = read::Platform{"Linux", "aarch64"}});
  ASSERT_TRUE(p) << p.error().message;
  EXPECT_EQ(cmake_of(*p), "sm_100;sm_120");
  EXPECT_EQ(p->notes.size(), 2u);
  Harness old("sm_75 sm_80 sm_86 sm_89 sm_90");
  auto q = old.plan({.gpus = {"RTX 5090"}});
  ASSERT_TRUE(q) << q.error().message;
  EXPECT_EQ(cmake_of(*q), "compute_90");
}

TEST(Plan, RefusesTargetsTheLocalNvccCannotBuild) {
  Harness h;
  auto p = h.plan({.archs = "7.0;8.0"});
  ASSERT_FALSE(p);
  EXPECT_FALSE(p.error().usage);
  EXPECT_NE(p.error().message.find("sm_70 (built by CUDA 9.0 to 12.9)"), std::string::npos) << p.error().message;
}

TEST(Plan, RefusesTargetsThatDoNotRunOnANamedGpu) {
  Harness h;
  auto p = h.plan({.gpus = {"h100"}, .archs = "8.0"});
  ASSERT_FALSE(p);
  EXPECT_TRUE(p.error().usage);
  EXPECT_NE(p.error().message.find("H100"), std::string::npos);
}

TEST(Plan, MissingToolsAreNamed) {
  Harness h;
  io::FakeFilesystem empty;
  empty.add_file("/proj/CMakeLists.txt", "");
  io::Seams s{empty, h.proc, h.clock, h.env, h.out, h.err};
  auto p = plan::make_plan({.project_dir = "/proj"}, s, h.gpus, h.machine);
  ASSERT_FALSE(p);
  EXPECT_NE(p.error().message.find("cmake not found"), std::string::npos);
}

TEST(Plan, NotACMakeProject) {
  Harness h;
  auto p = plan::make_plan({.project_dir = "/elsewhere"}, h.seams, h.gpus, h.machine);
  ASSERT_FALSE(p);
  EXPECT_TRUE(p.error().usage);
}

TEST(Plan, CcacheIsOptional) {
  Harness h;
  h.env.set("PATH", "/nowhere");
  h.fs.add_file("/nowhere/cmake", "", true);
  h.fs.add_file("/nowhere/ninja", "", true);
  auto p = h.plan({.gpus = {"h100"}});
  ASSERT_TRUE(p) << p.error().message;
  EXPECT_TRUE(p->ccache.empty());
  ASSERT_FALSE(p->notes.empty());
  EXPECT_NE(p->notes[0].find("ccache not found"), std::string::npos);
}

TEST(Plan, CommandLinesCarryTheChoices) {
  Harness h;
  auto p = h.plan({.gpus = {"h100"}, .jobs = 3});
  ASSERT_TRUE(p);
  auto argv = p->configure_argv();
  auto has = [&](const std::string& a) { return std::find(argv.begin(), argv.end(), a) != argv.end(); };
  EXPECT_TRUE(has("-DCMAKE_CUDA_ARCHITECTURES=90-real"));
  EXPECT_TRUE(has("-DCMAKE_CUDA_COMPILER_LAUNCHER=/usr/bin/ccache"));
  EXPECT_TRUE(has("-G"));
  EXPECT_EQ(p->build_argv(), (std::vector<std::string>{"/usr/bin/ninja", "-C", "/proj/build-kiln", "-j", "3"}));
  auto env = p->child_env(h.env);
  EXPECT_EQ(env["CCACHE_STATSLOG"], "/proj/build-kiln/kiln-ccache-stats.log");
  EXPECT_EQ(env["PATH"].substr(0, 19), "/usr/local/cuda/bin");
}

TEST(Plan, CcacheBasedirHoldsProjectAndBuildFolder) {
  Harness h;
  auto p = h.plan({.build_dir = "/proj/out/b1", .gpus = {"h100"}}).value();
  EXPECT_EQ(p.ccache_basedir(), "/proj");
  // Outside the project: configured through BUILD/.s, whose paths are all under the build folder.
  auto q = h.plan({.build_dir = "/work/tmp/b2", .gpus = {"h100"}}).value();
  EXPECT_EQ(q.ccache_basedir(), "/work/tmp/b2");
  // A build folder CMake configured from the project itself keeps it: the deepest common folder.
  h.fs.add_file("/work/src/proj/CMakeLists.txt", "");
  h.fs.add_file("/work/tmp/b3/CMakeCache.txt", "CMAKE_HOME_DIRECTORY:INTERNAL=/work/src/proj\n");
  auto r = plan::make_plan({.project_dir = "/work/src/proj", .build_dir = "/work/tmp/b3", .gpus = {"h100"}}, h.seams,
                           h.gpus, h.machine)
               .value();
  EXPECT_EQ(r.ccache_basedir(), "/work");
  h.fs.add_file("/b4/CMakeCache.txt", "CMAKE_HOME_DIRECTORY:INTERNAL=/proj\n");
  EXPECT_EQ(h.plan({.build_dir = "/b4", .gpus = {"h100"}})->ccache_basedir(), "/");  // nothing in common but "/"
}

TEST(Plan, MakefileGeneratorBuildsThroughCmakeAndNeedsMake) {
  Harness h;
  auto missing = h.plan({.archs = "80-real", .generator = "Unix Makefiles"});
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().message.find("make not found"), std::string::npos);
  h.fs.add_file("/usr/bin/make", "", true);
  auto p = h.plan({.archs = "80-real", .jobs = 3, .generator = "Unix Makefiles"});
  ASSERT_TRUE(p) << p.error().message;
  auto conf = p->configure_argv();
  EXPECT_NE(std::find(conf.begin(), conf.end(), "Unix Makefiles"), conf.end());
  for (const auto& a : conf) EXPECT_EQ(a.find("CMAKE_MAKE_PROGRAM"), std::string::npos);
  EXPECT_EQ(p->build_argv(), (std::vector<std::string>{"/usr/bin/cmake", "--build", p->build_dir, "-j", "3"}));
  auto bad = h.plan({.generator = "Xcode"});
  ASSERT_FALSE(bad);
  EXPECT_TRUE(bad.error().usage);
}

TEST(Plan, NinjaIsTheDefaultGenerator) {
  Harness h;
  auto p = h.plan({.archs = "80-real"});
  ASSERT_TRUE(p) << p.error().message;
  EXPECT_EQ(p->build_argv()[0], "/usr/bin/ninja");
  auto conf = p->configure_argv();
  EXPECT_NE(std::find(conf.begin(), conf.end(), "Ninja"), conf.end());
}

// Issue 23: two builds on one machine share one ledger (one budget), whatever their build folders;
// another cgroup (a container, a Slurm job) gets its own.
TEST(Plan, EveryBuildOfAMachineSharesOneLedger) {
  Harness h;
  h.env.set("XDG_RUNTIME_DIR", "/run/user/1000");
  h.fs.add_file("/proc/self/cgroup", "0::/user.slice/session-1.scope\n");
  auto a = h.plan({.build_dir = "/proj/b1", .gpus = {"h100"}, .governor = true, .kiln_exe = "/usr/bin/kiln"}).value();
  auto b = h.plan({.build_dir = "/tmp/b2", .gpus = {"h100"}, .governor = true, .kiln_exe = "/usr/bin/kiln"}).value();
  ASSERT_TRUE(a.governed());
  const auto la = a.child_env(h.env)["KILN_LEDGER"], lb = b.child_env(h.env)["KILN_LEDGER"];
  EXPECT_EQ(la, lb);
  EXPECT_EQ(la.rfind("/run/user/1000/kiln/ledger-", 0), 0u) << la;
  h.fs.add_file("/proc/self/cgroup", "0::/system.slice/slurmstepd.scope/job_7\n");
  auto c = h.plan({.build_dir = "/proj/b1", .gpus = {"h100"}, .governor = true, .kiln_exe = "/usr/bin/kiln"}).value();
  EXPECT_NE(c.child_env(h.env)["KILN_LEDGER"], la);
  h.env.set("XDG_RUNTIME_DIR", "");
  EXPECT_EQ(plan::machine_ledger_place(h.fs, h.env, 1234).path.rfind("/tmp/kiln-1234/ledger-", 0), 0u);
}

// Issue 23: an unusable ccache folder (a file where the folder should be) failed every compile
// with a generic diagnosis; now the plan finds it and builds without ccache, saying why.
TEST(Plan, ACcacheFolderThatIsAFileIsFoundUpFront) {
  Harness h;
  h.fs.add_file("/cache/ccache", "not a folder");
  auto p = h.plan({.gpus = {"h100"}, .cache_dir = "/cache/ccache"}).value();
  EXPECT_TRUE(p.ccache.empty());
  bool named = false;
  for (const auto& n : p.notes)
    named = named || n.find("ccache folder /cache/ccache is a file, not a folder") != std::string::npos;
  EXPECT_TRUE(named);
  auto ok = h.plan({.gpus = {"h100"}, .cache_dir = "/cache/fresh"}).value();
  EXPECT_EQ(ok.ccache, "/usr/bin/ccache");
}

// A folder this user cannot write in (root made ~/.cache/ccache with sudo): found whether it is
// given, set in CCACHE_DIR or ccache's own default.
TEST(Plan, ACcacheFolderThatCannotBeWrittenIsFoundUpFront) {
  auto has_note = [](const plan::Plan& p, const std::string& text) {
    for (const auto& n : p.notes)
      if (n.find(text) != std::string::npos) return true;
    return false;
  };
  Harness h;
  h.fs.set_read_only("/home/u/.cache/ccache");
  h.proc.on("/usr/bin/ccache --get-config cache_dir", io::ran("/home/u/.cache/ccache\n"));
  auto p = h.plan({.gpus = {"h100"}}).value();
  EXPECT_TRUE(p.ccache.empty());
  EXPECT_TRUE(has_note(p, "ccache folder /home/u/.cache/ccache cannot be written by this user"));
  h.env.set("CCACHE_DIR", "/home/u/fresh");
  EXPECT_EQ(h.plan({.gpus = {"h100"}}).value().ccache, "/usr/bin/ccache");
  auto given = h.plan({.gpus = {"h100"}, .cache_dir = "/home/u/.cache/ccache/sub"}).value();
  EXPECT_TRUE(given.ccache.empty());
  EXPECT_TRUE(has_note(given, "cannot be made in /home/u/.cache/ccache"));
}

// Issue 21: -D CMAKE_CUDA_ARCHITECTURES came after kiln's own -D and silently replaced the plan.
TEST(Plan, CmakeCudaArchitecturesDefineIsThePlan) {
  Harness h;
  auto p = h.plan({.gpus = {"h100"}, .cmake_defines = {"CMAKE_CUDA_ARCHITECTURES:STRING=90-real;100-real"}});
  ASSERT_TRUE(p) << p.error().message;
  EXPECT_EQ(cmake_of(*p), "sm_90;sm_100");
  EXPECT_EQ(p->arch_source, "-D CMAKE_CUDA_ARCHITECTURES");
  auto twice = h.plan({.archs = "9.0", .cmake_defines = {"CMAKE_CUDA_ARCHITECTURES=80"}});
  ASSERT_FALSE(twice);
  EXPECT_TRUE(twice.error().usage);
  EXPECT_NE(twice.error().message.find("given twice"), std::string::npos) << twice.error().message;
}

// CMake reads CUDAARCHS as the default of CMAKE_CUDA_ARCHITECTURES; kiln's -D would hide it.
TEST(Plan, CudaarchsIsReadAsCmakeReadsIt) {
  Harness h;
  h.env.set("CUDAARCHS", "86-real;90");
  h.env.set("TORCH_CUDA_ARCH_LIST", "7.5");
  auto p = h.plan({});
  ASSERT_TRUE(p) << p.error().message;
  EXPECT_EQ(cmake_of(*p), "sm_86;sm_90;compute_90");
  EXPECT_EQ(p->arch_source, "CUDAARCHS");
}

// A V100 under CUDA 13: say which architecture and which CUDA builds it, not "the list is empty".
TEST(Plan, GpuTheToolkitDroppedNamesItsArchAndCuda) {
  Harness h;
  for (const char* gpu : {"V100", "P100"}) {
    auto p = h.plan({.gpus = {gpu}});
    ASSERT_FALSE(p) << gpu;
    EXPECT_NE(p.error().message.find(gpu), std::string::npos) << p.error().message;
    EXPECT_NE(p.error().message.find(std::string(gpu) == "V100" ? "sm_70: built by CUDA" : "sm_60: built by CUDA"),
              std::string::npos)
        << p.error().message;
    EXPECT_EQ(p.error().message.find("empty"), std::string::npos) << p.error().message;
  }
}

// Issue 21: `--build-type Fast` was accepted; CMake would have built it with no optimisation flags.
TEST(Plan, UnknownBuildTypeIsRefusedNamingTheValidOnes) {
  Harness h;
  auto p = h.plan({.gpus = {"h100"}, .build_type = "Fast"});
  ASSERT_FALSE(p);
  EXPECT_TRUE(p.error().usage);
  EXPECT_NE(p.error().message.find("Release, RelWithDebInfo, Debug or MinSizeRel"), std::string::npos);
  EXPECT_TRUE(h.plan({.gpus = {"h100"}, .build_type = "RelWithDebInfo"}));
}

TEST(Plan, EmptyGitSubmodulesAreNamedWithTheCommandThatFillsThem) {
  Harness h;
  h.fs.add_file("/proj/.gitmodules", "[submodule \"cutlass\"]\n\tpath = third_party/cutlass\n");
  h.fs.add_dir("/proj/third_party/cutlass");
  auto p = h.plan({.archs = "90"});
  ASSERT_TRUE(p) << p.error().message;
  EXPECT_EQ(p->empty_submodules, (std::vector<std::string>{"third_party/cutlass"}));
  bool named = false;
  for (const auto& n : p->notes)
    named |= n.find("empty git submodule third_party/cutlass") != std::string::npos &&
             n.find("git submodule update --init --recursive") != std::string::npos;
  EXPECT_TRUE(named);
  h.fs.add_file("/proj/third_party/cutlass/.git", "gitdir: ../../.git/modules/cutlass");
  EXPECT_TRUE(h.plan({.archs = "90"})->empty_submodules.empty());
}

// Issue 33: `--gpu orin` for an x86-64 build was accepted and shown `native`; x86-64 files never
// load on a Jetson.
TEST(Plan, AJetsonGpuIsRefusedForAnX8664Build) {
  Harness h;
  auto p = h.plan({.gpus = {"orin"}, .platform = read::Platform{"Linux", "x86_64"}});
  ASSERT_FALSE(p);
  EXPECT_TRUE(p.error().usage);
  EXPECT_NE(p.error().message.find("--gpu 'orin': Jetson AGX Orin is an aarch64 (Jetson) GPU and this build is for "
                                   "x86-64"),
            std::string::npos)
      << p.error().message;
  EXPECT_EQ(p.error().message.find('\n'), std::string::npos);
  EXPECT_TRUE(h.plan({.gpus = {"orin"}, .platform = read::Platform{"Linux", "aarch64"}}));
  EXPECT_TRUE(h.plan({.gpus = {"h100"}, .platform = read::Platform{"Linux", "x86_64"}}));
}

// Issue 33: a --knob the project reads nowhere (a typo) was taken silently.
TEST(Plan, AKnobTheProjectDoesNotReadIsWarnedWithTheNearestNameAndStillSet) {
  Harness h;
  h.fs.add_file("/proj/CMakeLists.txt", "project(x)\noption(WITH_FAST_KERNELS \"fast kernels\" OFF)\n");
  auto p = h.plan({.archs = "90", .knobs = {"WITH_FAST_KERNEL=ON", "WITH_FAST_KERNELS=ON", "ZZZ_OTHER=1"}});
  ASSERT_TRUE(p) << p.error().message;
  std::vector<std::string> warnings;
  for (const auto& n : p->notes)
    if (n.rfind("warning: --knob", 0) == 0) warnings.push_back(n);
  ASSERT_EQ(warnings.size(), 2u);
  EXPECT_EQ(warnings[0],
            "warning: --knob WITH_FAST_KERNEL=ON: no build file of the project names WITH_FAST_KERNEL (did you mean "
            "WITH_FAST_KERNELS?); set as given");
  EXPECT_EQ(warnings[1], "warning: --knob ZZZ_OTHER=1: no build file of the project names ZZZ_OTHER; set as given");
  bool applied = false;
  for (const auto& k : p->knobs.knobs) applied |= k.name == "WITH_FAST_KERNEL" && k.value == "ON" && k.sets();
  EXPECT_TRUE(applied);
}
