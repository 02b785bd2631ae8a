// The project-knob reader on real build files (tests/fixtures/projects/<name>/, each with a SOURCE
// naming repository and commit) and the decisions kiln takes for each knob.
#include <gtest/gtest.h>

#include "test_support.hpp"

#include <filesystem>
#include <map>

#include "io/environment.hpp"
#include "io/fs.hpp"
#include "read/project_kind.hpp"
#include "read/project_knobs.hpp"

using namespace kiln;
using kiln::read::Knob;
using kiln::read::KnobSighting;

namespace {

const std::string kFixtures = kiln::testing::source_dir() + "/tests/fixtures/projects/";

struct Decided {
  std::string role, value, origin, where;
  bool operator==(const Decided&) const = default;
};
std::ostream& operator<<(std::ostream& o, const Decided& d) {
  return o << "{" << d.role << ", '" << d.value << "', " << d.origin << ", " << d.where << "}";
}

read::KnobPlan plan_for(const std::string& name, read::KnobContext ctx = {}) {
  io::RealFilesystem fs;
  const std::string dir = kFixtures + name;
  const bool cmake = read::detect_project_kind(fs, dir) == read::ProjectKind::cmake;
  if (ctx.sass.empty()) ctx.sass = {90};
  if (ctx.jobs == 1) ctx.jobs = 8;
  return read::decide_knobs(read::read_project(fs, dir, cmake), ctx);
}

const Knob* find(const read::KnobPlan& kp, const std::string& name) {
  for (const auto& k : kp.knobs)
    if (k.name == name) return &k;
  return nullptr;
}

// Every knob but the ones the table calls unrelated, by name.
std::map<std::string, Decided> gates(const read::KnobPlan& kp) {
  std::map<std::string, Decided> out;
  for (const auto& k : kp.knobs)
    if (k.role != "unrelated") out[k.name] = {k.role, k.value, k.origin, k.where};
  return out;
}

TEST(ProjectKnobsFixtures, EveryFixtureCitesItsSource) {
  int n = 0;
  for (const auto& e : std::filesystem::directory_iterator(kFixtures)) {
    io::RealFilesystem fs;
    auto src = fs.read(e.path().string() + "/SOURCE");
    ASSERT_TRUE(src) << e.path() << " has no SOURCE";
    EXPECT_NE(src->find("repository: https://github.com/"), std::string::npos) << e.path();
    EXPECT_NE(src->find("commit: "), std::string::npos) << e.path();
    ++n;
  }
  EXPECT_GE(n, 6);
}

TEST(ProjectKnobsFixtures, CausalConv1dForcesTheBuildAndKeepsCudaOn) {
  auto kp = plan_for("causal-conv1d");
  std::map<std::string, Decided> want = {
      {"CAUSAL_CONV1D_FORCE_BUILD", {"force-build", "TRUE", "kiln", "setup.py:43"}},
      {"CAUSAL_CONV1D_SKIP_CUDA_BUILD", {"cuda-skip", "FALSE", "kiln", "setup.py:44"}},
      {"CAUSAL_CONV1D_FORCE_CXX11_ABI", {"cxx11-abi", "", "", "setup.py:46"}},
  };
  EXPECT_EQ(gates(kp), want);
  EXPECT_TRUE(kp.probes.empty());
  EXPECT_NE(kp.cuda_evidence.find("setup.py:"), std::string::npos);
}

TEST(ProjectKnobsFixtures, FlashAttentionGetsThreadsJobsAndItsOwnArchList) {
  read::KnobContext ctx;
  ctx.sass = {90, 100};
  ctx.targets = 2;
  ctx.jobs = 6;
  auto kp = plan_for("flash-attention", ctx);
  std::map<std::string, Decided> want = {
      {"FLASH_ATTENTION_FORCE_BUILD", {"force-build", "TRUE", "kiln", "setup.py:63"}},
      {"FLASH_ATTENTION_SKIP_CUDA_BUILD", {"cuda-skip", "FALSE", "kiln", "setup.py:64"}},
      {"FLASH_ATTENTION_FORCE_CXX11_ABI", {"cxx11-abi", "", "", "setup.py:66"}},
      {"NVCC_THREADS", {"nvcc-threads", "2", "kiln", "setup.py:70"}},
      // The default "80;90;100;110;120" is spelt as ;-separated numbers: so are the targets.
      {"FLASH_ATTN_CUDA_ARCHS", {"arch-list", "90;100", "kiln", "setup.py:74"}},
      {"MAX_JOBS", {"jobs", "6", "kiln", "setup.py:697"}},
  };
  EXPECT_EQ(gates(kp), want);
}

TEST(ProjectKnobsFixtures, MambaKeepsItsCudaBuild) {
  auto kp = plan_for("mamba");
  std::map<std::string, Decided> want = {
      {"MAMBA_FORCE_BUILD", {"force-build", "TRUE", "kiln", "setup.py:41"}},
      {"MAMBA_KEEP_CUDA_BUILD", {"cuda-enable", "TRUE", "kiln", "setup.py:42"}},
      {"MAMBA_FORCE_CXX11_ABI", {"cxx11-abi", "", "", "setup.py:44"}},
  };
  EXPECT_EQ(gates(kp), want);
}

TEST(ProjectKnobsFixtures, FastHadamardTransform) {
  auto kp = plan_for("fast-hadamard-transform");
  std::map<std::string, Decided> want = {
      {"FAST_HADAMARD_TRANSFORM_FORCE_BUILD", {"force-build", "TRUE", "kiln", "setup.py:40"}},
      {"FAST_HADAMARD_TRANSFORM_SKIP_CUDA_BUILD", {"cuda-skip", "FALSE", "kiln", "setup.py:41"}},
      {"FAST_HADAMARD_TRANSFORM_FORCE_CXX11_ABI", {"cxx11-abi", "", "", "setup.py:43"}},
      {"NVCC_THREADS", {"nvcc-threads", "1", "kiln", "setup.py:85"}},
  };
  EXPECT_EQ(gates(kp), want);
  // Its own -gencode list (sm_75 ... sm_121) rides beside TORCH_CUDA_ARCH_LIST: kiln says so.
  EXPECT_EQ(kp.hardcoded_archs.substr(0, 13), "setup.py:106 ") << kp.hardcoded_archs;
  EXPECT_EQ(plan_for("causal-conv1d").hardcoded_archs.substr(0, 9), "setup.py:");
  EXPECT_EQ(plan_for("extension-cpp").hardcoded_archs, "");
}

TEST(ProjectKnobsFixtures, ApexTurnsFlagVariablesOnAndReportsTheOnesItCannotClassify) {
  auto kp = plan_for("apex");
  auto g = gates(kp);
  // ENV_TO_FLAG maps APEX_CUDA_EXT to --cuda_ext; the loop applying it compares with "1".
  EXPECT_EQ(g["APEX_CUDA_EXT"], (Decided{"cuda-enable", "1", "kiln", "setup.py:26"}));
  EXPECT_EQ(g["APEX_CPP_EXT"], (Decided{"cpp-enable", "1", "kiln", "setup.py:25"}));
  EXPECT_EQ(g["TORCH_CUDA_ARCH_LIST"].role, "kiln-sets");
  EXPECT_EQ(g["TORCH_CUDA_ARCH_LIST"].origin, "");
  int unknown = 0;
  for (const auto& k : kp.knobs)
    if (k.role == "unknown") {
      ++unknown;
      EXPECT_EQ(k.origin, "") << k.name << " must be left alone";
      EXPECT_EQ(k.flag.substr(0, 2), "--") << k.name;
    }
  EXPECT_EQ(unknown, 18);  // the contrib extensions: optional, not kiln's to choose
  EXPECT_EQ(kp.probes.size(), 1u);
}

TEST(ProjectKnobsFixtures, PytorchScatterForcesCudaWithoutAGpu) {
  auto kp = plan_for("pytorch_scatter");
  std::map<std::string, Decided> want = {
      {"FORCE_CUDA", {"cuda-enable", "1", "kiln", "setup.py:21"}},
      {"FORCE_ONLY_CUDA", {"cuda-only", "", "", "setup.py:23"}},
      {"FORCE_ONLY_CPU", {"cuda-skip", "0", "kiln", "setup.py:25"}},
  };
  EXPECT_EQ(gates(kp), want);
  ASSERT_EQ(kp.probes.size(), 1u);
  EXPECT_EQ(kp.probes[0].substr(0, 12), "setup.py:18 ");
}

TEST(ProjectKnobsFixtures, ExtensionCppUseCudaIsOnByDefault) {
  auto kp = plan_for("extension-cpp");
  std::map<std::string, Decided> want = {{"USE_CUDA", {"cuda-enable", "1", "kiln", "setup.py:29"}}};
  EXPECT_EQ(gates(kp), want);
  EXPECT_EQ(kp.probes.size(), 1u);  // and only where torch sees a GPU
}

TEST(ProjectKnobsFixtures, BitsandbytesIsACMakeProjectWithACudaBackend) {
  io::RealFilesystem fs;
  EXPECT_EQ(read::detect_project_kind(fs, kFixtures + "bitsandbytes"), read::ProjectKind::cmake);
  auto kp = plan_for("bitsandbytes");
  // COMPUTE_CAPABILITY replaces CMAKE_CUDA_ARCHITECTURES; its default is a variable, so the
  // table's spelling (numbers) decides.
  std::map<std::string, Decided> want = {{"COMPUTE_BACKEND", {"cuda-enable", "cuda", "kiln", "CMakeLists.txt:69"}},
                                         {"COMPUTE_CAPABILITY", {"arch-list", "90", "kiln", "CMakeLists.txt:216"}}};
  EXPECT_EQ(gates(kp), want);
  EXPECT_TRUE(find(kp, "COMPUTE_BACKEND")->cmake);  // a -D entry, not an environment variable
}

// --- the reader on small texts ---

TEST(ProjectKnobsRead, ComparisonsDefaultsAndValues) {
  auto s = read::read_setup_py(
      "import os\n"
      "A = os.getenv(\"A_FORCE_BUILD\", \"FALSE\") == \"TRUE\"  # comment \"x\"\n"
      "if os.environ.get('B', '').lower() not in ('1', 'true', 'yes'):\n"
      "    pass\n"
      "T = os.getenv(\"NVCC_THREADS\") or \"4\"\n"
      "# C = os.getenv(\"COMMENTED\", \"0\") == \"1\"\n"
      "os.environ[\"SETS_ITSELF\"] = \"1\"\n"
      "p = os.environ[\"READ\"]\n"
      "if \"PRESENT\" in os.environ: pass\n"
      "n = int(os.getenv(\"NUM\", \"0\"))\n");
  std::map<std::string, KnobSighting> by;
  for (const auto& k : s) by[k.name] = k;
  ASSERT_EQ(by.size(), 6u);
  EXPECT_EQ(by["A_FORCE_BUILD"].true_value, "TRUE");
  EXPECT_EQ(by["A_FORCE_BUILD"].default_value, "FALSE");
  EXPECT_EQ(by["A_FORCE_BUILD"].line, 2);
  EXPECT_EQ(by["B"].true_value, "1");
  EXPECT_TRUE(by["B"].negated);
  EXPECT_EQ(by["NVCC_THREADS"].use, KnobSighting::Use::value);
  EXPECT_EQ(by["NVCC_THREADS"].default_value, "4");
  EXPECT_EQ(by["READ"].use, KnobSighting::Use::value);
  EXPECT_EQ(by["PRESENT"].use, KnobSighting::Use::compare);
  EXPECT_EQ(by["NUM"].true_value, "1");
  EXPECT_FALSE(by.count("COMMENTED"));
  EXPECT_FALSE(by.count("SETS_ITSELF"));
}

TEST(ProjectKnobsRead, CMakeOptionsCacheStringsAndEnv) {
  auto s = read::read_cmakelists(
      "option(WITH_CUDA \"Build CUDA\" OFF)\n"
      "option(BUILD_TESTS \"tests\")\n"
      "set(MY_BACKEND \"cpu\" CACHE STRING \"backend\")\n"
      "set_property(CACHE MY_BACKEND PROPERTY STRINGS cpu cuda hip)\n"
      "if(DEFINED ENV{MY_ROOT})\n");
  ASSERT_EQ(s.size(), 4u);
  EXPECT_EQ(s[0].use, KnobSighting::Use::cmake_option);
  EXPECT_EQ(s[0].default_value, "OFF");
  EXPECT_EQ(s[1].default_value, "OFF");
  EXPECT_EQ(s[2].use, KnobSighting::Use::cmake_cache);
  EXPECT_EQ(s[2].choices, (std::vector<std::string>{"cpu", "cuda", "hip"}));
  EXPECT_EQ(s[3].name, "MY_ROOT");
}

TEST(ProjectKnobsRead, PyprojectScikitBuildDefines) {
  auto s = read::read_pyproject("[tool.scikit-build]\ncmake.define = { GPU_BACKEND = \"cpu\", FAST = true }\n");
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(s[0].use, KnobSighting::Use::cmake_cache);
  EXPECT_TRUE(read::read_pyproject("not [toml").empty());
}

TEST(ProjectKnobsRead, CudaEvidence) {
  EXPECT_EQ(read::cuda_evidence("x = 1\next = CUDAExtension(\n", "setup.py").substr(0, 10), "setup.py:2");
  EXPECT_EQ(read::cuda_evidence("ext = CppExtension('a', ['a.cpp'])\n", "setup.py"), "");
  EXPECT_NE(read::cuda_evidence("project(x LANGUAGES CXX CUDA)\n", "CMakeLists.txt"), "");
  EXPECT_EQ(read::cuda_evidence("# enable_language(CUDA)\nproject(x CXX)\n", "CMakeLists.txt"), "");
}

// --- decisions ---

read::ProjectReading reading(const std::string& setup_py) {
  read::ProjectReading r;
  r.sightings = read::read_setup_py(setup_py);
  r.cuda_evidence = "setup.py:1 CUDAExtension(";
  return r;
}

TEST(ProjectKnobsDecide, TheEnvironmentAndKnobFlagWinAndNoKnobsSetsNothing) {
  auto r = reading("F = os.getenv(\"X_FORCE_BUILD\", \"FALSE\") == \"TRUE\"\nK = os.getenv(\"X_KEEP_CUDA_BUILD\", \"FALSE\") == \"TRUE\"\n");
  io::FakeEnvironment env{{{"X_FORCE_BUILD", "FALSE"}}};
  read::KnobContext ctx;
  ctx.env = &env;
  ctx.overrides = {{"X_KEEP_CUDA_BUILD", "yes"}, {"OTHER", "1"}};
  auto kp = read::decide_knobs(r, ctx);
  EXPECT_EQ(find(kp, "X_FORCE_BUILD")->origin, "environment");
  EXPECT_EQ(find(kp, "X_FORCE_BUILD")->value, "FALSE");
  EXPECT_FALSE(find(kp, "X_FORCE_BUILD")->sets());
  EXPECT_EQ(find(kp, "X_KEEP_CUDA_BUILD")->origin, "--knob");
  EXPECT_EQ(find(kp, "X_KEEP_CUDA_BUILD")->value, "yes");
  ASSERT_NE(find(kp, "OTHER"), nullptr);
  EXPECT_TRUE(find(kp, "OTHER")->sets());

  read::KnobContext off;
  off.no_knobs = true;
  auto none = read::decide_knobs(r, off);
  for (const auto& k : none.knobs) {
    EXPECT_FALSE(k.sets()) << k.name;
    EXPECT_NE(k.reason.find("--no-knobs"), std::string::npos) << k.name;
  }
}

TEST(ProjectKnobsDecide, CpuPlansTurnNothingOn) {
  read::KnobContext ctx;
  ctx.cuda = false;
  auto kp = read::decide_knobs(reading("K = os.getenv(\"X_KEEP_CUDA_BUILD\", \"FALSE\") == \"TRUE\"\n"), ctx);
  EXPECT_FALSE(kp.knobs.at(0).sets());
}

TEST(ProjectKnobsDecide, UnknownSwitchesAreReportedNotSet) {
  auto kp = read::decide_knobs(reading("Z = os.getenv(\"ZAP_MODE\", \"0\") == \"1\"\nP = os.getenv(\"SOME_PATH\")\n"), {});
  ASSERT_EQ(kp.knobs.size(), 1u);  // a value read (a path) is no switch
  EXPECT_EQ(kp.knobs[0].role, "unknown");
  EXPECT_FALSE(kp.knobs[0].sets());
}

TEST(ProjectKnobsDecide, OffValueFallsBackToTheOppositeOfOn) {
  auto kp = read::decide_knobs(reading("if os.environ.get('X_SKIP_CMAKE', '').lower() in ('1', 'true'): pass\n"), {});
  EXPECT_EQ(kp.knobs.at(0).value, "0");
  // A negated comparison with an off value: the opposite is the on value.
  auto neg = read::decide_knobs(reading("if os.getenv('WITH_CUDA', '0') != '0': pass\n"), {});
  EXPECT_EQ(neg.knobs.at(0).value, "1");
}

TEST(ProjectKnobsDecide, GateReasonNamesTheSwitchAndItsOnValue) {
  auto r = reading("K = os.getenv(\"X_KEEP_CUDA_BUILD\", \"FALSE\") == \"TRUE\"\nif torch.cuda.is_available(): pass\n");
  read::KnobContext ctx;
  ctx.no_knobs = true;
  auto kp = read::decide_knobs(r, ctx);
  io::FakeEnvironment env;
  auto why = read::cuda_gate_reason(kp, env);
  EXPECT_NE(why.find("X_KEEP_CUDA_BUILD was 'FALSE' (the project's default, setup.py:1)"), std::string::npos) << why;
  EXPECT_NE(why.find("X_KEEP_CUDA_BUILD=TRUE"), std::string::npos) << why;
  EXPECT_NE(why.find("torch sees a GPU"), std::string::npos) << why;
  // Turned on: the switch is no longer the reason.
  auto on = read::decide_knobs(reading("K = os.getenv(\"X_KEEP_CUDA_BUILD\", \"FALSE\") == \"TRUE\"\n"), {});
  EXPECT_EQ(read::cuda_gate_reason(on, env), "");
}

TEST(ProjectKnobsDecide, GlobMatch) {
  EXPECT_TRUE(read::glob_match("*_FORCE_BUILD", "CAUSAL_CONV1D_FORCE_BUILD"));
  EXPECT_FALSE(read::glob_match("*_FORCE_BUILD", "FORCE_BUILD"));
  EXPECT_TRUE(read::glob_match("HIP_*", "HIP_ARCHITECTURES"));
  EXPECT_TRUE(read::glob_match("*_CUDA_*", "A_CUDA_B"));
  EXPECT_FALSE(read::glob_match("DEBUG", "DEBUGX"));
}

}  // namespace

// The table itself: every role says what kiln does, why, and where it was learnt.
#include "core/data_toml.hpp"
TEST(ProjectKnobsTable, EveryRoleHasAnActionAReasonAndSources) {
  const toml::table t = kiln::data::load_toml("project_knobs.toml");
  const auto* roles = t["role"].as_array();
  ASSERT_NE(roles, nullptr);
  ASSERT_GE(roles->size(), 10u);
  const std::vector<std::string> actions = {"on", "off", "jobs", "threads", "targets", "leave"};
  for (const auto& node : *roles) {
    const auto& r = *node.as_table();
    std::string id = r["id"].value_or(std::string());
    EXPECT_FALSE(id.empty());
    EXPECT_NE(std::find(actions.begin(), actions.end(), r["action"].value_or(std::string())), actions.end()) << id;
    EXPECT_FALSE(r["reason"].value_or(std::string()).empty()) << id;
    ASSERT_NE(r["sources"].as_array(), nullptr) << id;
    EXPECT_FALSE(r["sources"].as_array()->empty()) << id;
    ASSERT_NE(r["names"].as_array(), nullptr) << id;
  }
}

// Issue 21: a target's own CUDA_ARCHITECTURES beats the plan's -DCMAKE_CUDA_ARCHITECTURES; the
// fix line must name it. A CACHE default does not beat -D, so it is not reported.
TEST(ProjectKnobsRead, CmakeArchOverride) {
  EXPECT_EQ(read::cmake_arch_override("project(x CUDA)\nadd_library(k a.cu)\n"
                                      "set_target_properties(k PROPERTIES CUDA_ARCHITECTURES 75-real)\n",
                                      "CMakeLists.txt"),
            "CMakeLists.txt:3 set_target_properties(k PROPERTIES CUDA_ARCHITECTURES 75-real)");
  EXPECT_EQ(read::cmake_arch_override("set(CMAKE_CUDA_ARCHITECTURES 80)\n", "CMakeLists.txt"),
            "CMakeLists.txt:1 set(CMAKE_CUDA_ARCHITECTURES 80)");
  EXPECT_EQ(read::cmake_arch_override("set(CMAKE_CUDA_ARCHITECTURES 80 CACHE STRING \"\")\n# CUDA_ARCHITECTURES 70\n",
                                      "CMakeLists.txt"),
            "");
}
