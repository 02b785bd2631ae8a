// The project-knob reader on fixtures written for kiln (tests/fixtures/projects/<name>/, each
// reproducing one public project's pattern, its SOURCE naming repository and commit; no file is a
// copy) and the decisions kiln takes for each knob. setup.py is read with Python's ast by python3
// (data/read_setup.py), as `kiln plan` reads it.
#include <gtest/gtest.h>

#include "knob_fixtures.hpp"

#include <filesystem>
#include <map>
#include <set>

#include "fakes/environment.hpp"
#include "fakes/fs.hpp"
#include "io/process.hpp"
#include "read/project_kind.hpp"
#include "read/project_knobs.hpp"
#include "read/setup_py_ast.hpp"

using namespace kiln;
using kiln::read::Knob;
using kiln::read::KnobSighting;

namespace {

const std::string& kFixtures = kiln::testing::kKnobFixtures;
using kiln::testing::Decided;
using kiln::testing::find;

tl::expected<read::SetupPyReading, std::string> ast_reading(const std::string& dir) {
  io::RealProcessRunner proc;
  return read::read_setup_py_ast(proc, "python3", dir);
}

read::ProjectKind kind_of(const std::string& name) {
  io::RealFilesystem fs;
  auto setup = ast_reading(kFixtures + name);
  return read::detect_project_kind(fs, kFixtures + name, &setup);
}

read::KnobPlan plan_for(const std::string& name, read::KnobContext ctx = {}) {
  if (ctx.jobs == 1) ctx.jobs = 8;
  return kiln::testing::plan_in(kFixtures + name, ctx);
}

// Every knob but the ones the table calls unrelated, by name.
std::map<std::string, Decided> gates(const read::KnobPlan& kp) { return kiln::testing::decided(kp); }

TEST(ProjectKnobsFixtures, EveryFixtureCitesItsSourceAndCopiesNothing) {
  int n = 0;
  for (const auto& e : std::filesystem::directory_iterator(kFixtures)) {
    io::RealFilesystem fs;
    auto src = fs.read(e.path().string() + "/SOURCE");
    ASSERT_TRUE(src) << e.path() << " has no SOURCE";
    EXPECT_NE(src->find("repository: https://github.com/"), std::string::npos) << e.path();
    EXPECT_NE(src->find("commit: "), std::string::npos) << e.path();
    EXPECT_NE(src->find("written for kiln"), std::string::npos) << e.path();
    for (const char* f : {"/setup.py", "/CMakeLists.txt"})
      if (auto t = fs.read(e.path().string() + f))
        EXPECT_NE(t->find("kiln test fixture"), std::string::npos) << e.path() << f;
    ++n;
  }
  EXPECT_GE(n, 14);
}

TEST(ProjectKnobsFixtures, CausalConv1dForcesTheBuildAndKeepsCudaOn) {
  auto kp = plan_for("causal-conv1d");
  std::map<std::string, Decided> want = {
      {"CAUSAL_CONV1D_FORCE_BUILD", {"force-build", "TRUE", "kiln", "setup.py:8"}},
      {"CAUSAL_CONV1D_SKIP_CUDA_BUILD", {"cuda-skip", "FALSE", "kiln", "setup.py:9"}},
      {"CAUSAL_CONV1D_FORCE_CXX11_ABI", {"cxx11-abi", "", "", "setup.py:10"}},
  };
  EXPECT_EQ(gates(kp), want);
  EXPECT_TRUE(kp.probes.empty());
  EXPECT_NE(kp.cuda_evidence.find("setup.py:"), std::string::npos);
  EXPECT_EQ(kp.reader, "Python's ast (1 file)");
}

TEST(ProjectKnobsFixtures, FlashAttentionGetsThreadsJobsAndItsOwnArchList) {
  read::KnobContext ctx;
  ctx.sass = {90, 100};
  ctx.targets = 2;
  ctx.jobs = 6;
  auto kp = plan_for("flash-attention", ctx);
  std::map<std::string, Decided> want = {
      {"FLASH_ATTENTION_FORCE_BUILD", {"force-build", "TRUE", "kiln", "setup.py:8"}},
      {"FLASH_ATTENTION_SKIP_CUDA_BUILD", {"cuda-skip", "FALSE", "kiln", "setup.py:9"}},
      {"FLASH_ATTENTION_FORCE_CXX11_ABI", {"cxx11-abi", "", "", "setup.py:10"}},
      {"NVCC_THREADS", {"nvcc-threads", "2", "kiln", "setup.py:11"}},
      // The default "80;90;100;110;120" is spelt as ;-separated numbers: so are the targets.
      {"FLASH_ATTN_CUDA_ARCHS", {"arch-list", "90;100", "kiln", "setup.py:15"}},
      {"MAX_JOBS", {"jobs", "6", "kiln", "setup.py:20"}},
  };
  EXPECT_EQ(gates(kp), want);
}

TEST(ProjectKnobsFixtures, MambaKeepsItsCudaBuild) {
  auto kp = plan_for("mamba");
  std::map<std::string, Decided> want = {
      {"MAMBA_FORCE_BUILD", {"force-build", "TRUE", "kiln", "setup.py:8"}},
      {"MAMBA_KEEP_CUDA_BUILD", {"cuda-enable", "TRUE", "kiln", "setup.py:9"}},
      {"MAMBA_FORCE_CXX11_ABI", {"cxx11-abi", "", "", "setup.py:10"}},
  };
  EXPECT_EQ(gates(kp), want);
}

TEST(ProjectKnobsFixtures, FastHadamardTransform) {
  auto kp = plan_for("fast-hadamard-transform");
  std::map<std::string, Decided> want = {
      {"FAST_HADAMARD_TRANSFORM_FORCE_BUILD", {"force-build", "TRUE", "kiln", "setup.py:8"}},
      {"FAST_HADAMARD_TRANSFORM_SKIP_CUDA_BUILD", {"cuda-skip", "FALSE", "kiln", "setup.py:9"}},
      {"FAST_HADAMARD_TRANSFORM_FORCE_CXX11_ABI", {"cxx11-abi", "", "", "setup.py:10"}},
      {"NVCC_THREADS", {"nvcc-threads", "1", "kiln", "setup.py:14"}},
  };
  EXPECT_EQ(gates(kp), want);
  // Its own -gencode list rides beside TORCH_CUDA_ARCH_LIST: kiln says so.
  EXPECT_EQ(kp.hardcoded_archs.substr(0, 12), "setup.py:18 ") << kp.hardcoded_archs;
  EXPECT_EQ(plan_for("causal-conv1d").hardcoded_archs.substr(0, 12), "setup.py:14 ");
  EXPECT_EQ(plan_for("extension-cpp").hardcoded_archs, "");
}

TEST(ProjectKnobsFixtures, ApexTurnsFlagVariablesOnAndReportsTheOnesItCannotClassify) {
  auto kp = plan_for("apex");
  auto g = gates(kp);
  // ENV_TO_FLAG maps APEX_CUDA_EXT to --cuda_ext; the loop applying it compares with "1".
  // README: APEX_CPP_EXT=1 APEX_CUDA_EXT=1 pip install -v --no-build-isolation .
  EXPECT_EQ(g["APEX_CUDA_EXT"], (Decided{"cuda-enable", "1", "kiln", "setup.py:12"}));
  EXPECT_EQ(g["APEX_CPP_EXT"], (Decided{"cpp-enable", "1", "kiln", "setup.py:11"}));
  EXPECT_EQ(g["TORCH_CUDA_ARCH_LIST"].role, "kiln-sets");
  EXPECT_EQ(g["TORCH_CUDA_ARCH_LIST"].origin, "");
  int unknown = 0;
  for (const auto& k : kp.knobs)
    if (k.role == "unknown") {
      ++unknown;
      EXPECT_EQ(read::to_string(k.origin), "") << k.name << " must be left alone";
      EXPECT_EQ(k.flag.substr(0, 2), "--") << k.name;
    }
  EXPECT_EQ(unknown, 3);           // the contrib extensions: optional, not kiln's to choose
  EXPECT_TRUE(kp.probes.empty());  // its probe picks architectures (setup.py:21), it gates no CUDA code
  EXPECT_TRUE(kp.undecided.empty()) << kp.undecided[0];  // the loop's variable name is the table's
}

TEST(ProjectKnobsFixtures, PytorchScatterForcesCudaWithoutAGpu) {
  // README: FORCE_CUDA=1 pip install torch-scatter builds the CUDA code where no GPU is seen.
  auto kp = plan_for("pytorch_scatter");
  std::map<std::string, Decided> want = {
      {"FORCE_CUDA", {"cuda-enable", "1", "kiln", "setup.py:13"}},
      {"FORCE_ONLY_CUDA", {"cuda-only", "", "", "setup.py:15"}},
      {"FORCE_ONLY_CPU", {"cuda-skip", "0", "kiln", "setup.py:17"}},
  };
  EXPECT_EQ(gates(kp), want);
  ASSERT_EQ(kp.probes.size(), 1u);
  EXPECT_EQ(kp.probes[0].substr(0, 12), "setup.py:10 ");
  // Against a CPU-only torch (torch.version.cuda None) cpp_extension cannot compile CUDA code: forcing
  // it on would fail in _check_cuda_version, so the switch stays at the project's default (its CPU
  // code), and says why.
  read::KnobContext cpu;
  cpu.torch_cpu_only = true;
  auto kc = plan_for("pytorch_scatter", cpu);
  want["FORCE_CUDA"] = {"cuda-enable", "", "", "setup.py:13"};
  EXPECT_EQ(gates(kc), want);
  for (const auto& k : kc.knobs)
    if (k.name == "FORCE_CUDA") EXPECT_NE(k.reason.find("CPU-only build"), std::string::npos) << k.reason;
}

TEST(ProjectKnobsFixtures, ExtensionCppUseCudaIsOnByDefault) {
  auto kp = plan_for("extension-cpp");
  std::map<std::string, Decided> want = {{"USE_CUDA", {"cuda-enable", "1", "kiln", "setup.py:12"}}};
  EXPECT_EQ(gates(kp), want);
  EXPECT_EQ(kp.probes.size(), 1u);  // and only where torch sees a GPU
}

TEST(ProjectKnobsFixtures, BitsandbytesIsACMakeProjectWithACudaBackend) {
  EXPECT_EQ(kind_of("bitsandbytes"), read::ProjectKind::cmake);
  auto kp = plan_for("bitsandbytes");
  // README: cmake -DCOMPUTE_BACKEND=cuda -S . ; COMPUTE_CAPABILITY replaces CMAKE_CUDA_ARCHITECTURES
  // and defaults to a variable, so the table's spelling (numbers) decides.
  std::map<std::string, Decided> want = {{"COMPUTE_BACKEND", {"cuda-enable", "cuda", "kiln", "CMakeLists.txt:7"}},
                                         {"COMPUTE_CAPABILITY", {"arch-list", "90", "kiln", "CMakeLists.txt:14"}}};
  EXPECT_EQ(gates(kp), want);
  EXPECT_TRUE(find(kp, "COMPUTE_BACKEND")->cmake);  // a -D entry, not an environment variable
  EXPECT_EQ(kp.cuda_evidence.substr(0, 18), "CMakeLists.txt:12 ");
}

// --- patterns of projects outside the table's first eight ---

TEST(ProjectKnobsFixtures, Detectron2GateSpanningThreeLinesIsTurnedOn) {
  // INSTALL.md: FORCE_CUDA=1 builds the CUDA code where torch sees no GPU (a Docker build).
  EXPECT_EQ(kind_of("detectron2"), read::ProjectKind::extension);  // `extension = CUDAExtension`
  auto kp = plan_for("detectron2");
  std::map<std::string, Decided> want = {{"FORCE_CUDA", {"cuda-enable", "1", "kiln", "setup.py:18"}}};
  EXPECT_EQ(gates(kp), want);  // the line of `) == "1"`, where the comparison is
  EXPECT_EQ(kp.probes.size(), 1u);
}

TEST(ProjectKnobsFixtures, MmcvWithOpsComparedWithZeroAndAContinuedGate) {
  // docs/en/get_started/build.md: MMCV_WITH_OPS=1 (and FORCE_CUDA=1 without a GPU).
  auto kp = plan_for("mmcv");
  std::map<std::string, Decided> want = {{"MMCV_WITH_OPS", {"cuda-enable", "1", "kiln", "setup.py:13"}},
                                         {"FORCE_CUDA", {"cuda-enable", "1", "kiln", "setup.py:17"}}};
  EXPECT_EQ(gates(kp), want);
}

TEST(ProjectKnobsFixtures, Pytorch3dSwitchesReadIntoVariables) {
  // INSTALL.md: FORCE_CUDA=1 to build the CUDA code without a GPU.
  auto kp = plan_for("pytorch3d");
  std::map<std::string, Decided> want = {{"PYTORCH3D_NO_EXTENSION", {"cuda-skip", "0", "kiln", "setup.py:11"}},
                                         {"FORCE_CUDA", {"cuda-enable", "1", "kiln", "setup.py:15"}},
                                         {"PYTORCH3D_FORCE_NO_CUDA", {"cuda-skip", "0", "kiln", "setup.py:16"}}};
  EXPECT_EQ(gates(kp), want);
}

TEST(ProjectKnobsFixtures, DeepSpeedOpsTurnedOnWhereTheyCanBuild) {
  // docs/_tutorials/advanced-install.md: DS_BUILD_OPS=1 pip install deepspeed, or
  // DS_BUILD_FUSED_ADAM=1 for one op. kiln sets each op's switch itself.
  EXPECT_EQ(kind_of("deepspeed"), read::ProjectKind::extension);  // its extensions come from op_builder/
  read::KnobContext ctx;
  ctx.has_library = [](const std::string& lib) { return std::optional<bool>(lib != "aio"); };
  auto kp = plan_for("deepspeed", ctx);
  auto g = gates(kp);
  EXPECT_EQ(g["DS_BUILD_FUSED_ADAM"], (Decided{"op", "1", "kiln", "op_builder/fused_adam.py:6"}));
  EXPECT_EQ(g["DS_BUILD_EVOFORMER_ATTN"], (Decided{"op", "1", "kiln", "op_builder/evoformer_attn.py:10"}));
  EXPECT_EQ(g["DS_BUILD_AIO"], (Decided{"op", "0", "kiln", "op_builder/async_io.py:6"}));
  EXPECT_NE(find(kp, "DS_BUILD_AIO")->reason.find("libaio.so"), std::string::npos) << find(kp, "DS_BUILD_AIO")->reason;
  EXPECT_EQ(g["DS_BUILD_OPS"].role, "ops-all");
  EXPECT_EQ(g["DS_BUILD_OPS"].origin, "");
  EXPECT_EQ(g["DS_NVCC_THREADS"].value, "1");  // read in the imported op_builder/builder.py
  // BUILD_OP_PLATFORM is computed (1 on Windows): named, not guessed. So are the ops' checks kiln
  // cannot decide: the torch here is unknown to this context, CUTLASS_PATH's folder, a triton import.
  auto named = [&](const std::string& what) {
    return std::any_of(kp.undecided.begin(), kp.undecided.end(),
                       [&](const std::string& u) { return u.find(what) != std::string::npos; });
  };
  EXPECT_TRUE(named("setup.py:17 BUILD_OP_DEFAULT"));
  EXPECT_TRUE(named("op_builder/evoformer_attn.py:14 self.cutlass_path")) << ::testing::PrintToString(kp.undecided);
  EXPECT_TRUE(named("needs CUTLASS_PATH"));
  EXPECT_TRUE(named("op_builder/sparse_attn.py:16 import triton"));
  EXPECT_TRUE(named("op_builder/sparse_attn.py:14 torch_compatible = (TORCH_MAJOR == 1 and TORCH_MINOR >= 5)"));
  EXPECT_EQ(g["DS_BUILD_SPARSE_ATTN"].value, "1");  // not ruled out without a torch version

  // With the build's torch known, its version checks are decided: sparse_attn wants torch 1.5-1.x,
  // evoformer_attn rules out a torch built with CUDA below 11.
  ctx.torch_version = "2.11.0+cu130";
  ctx.torch_cuda = "13.0";
  auto known = plan_for("deepspeed", ctx);
  EXPECT_EQ(find(known, "DS_BUILD_SPARSE_ATTN")->value, "0");
  EXPECT_NE(find(known, "DS_BUILD_SPARSE_ATTN")->reason.find("op_builder/sparse_attn.py:14"), std::string::npos)
      << find(known, "DS_BUILD_SPARSE_ATTN")->reason;
  EXPECT_EQ(find(known, "DS_BUILD_EVOFORMER_ATTN")->value, "1");
  ctx.torch_version = "1.13.1", ctx.torch_cuda = "10.2";
  auto older = plan_for("deepspeed", ctx);
  EXPECT_EQ(find(older, "DS_BUILD_SPARSE_ATTN")->value, "1");
  EXPECT_EQ(find(older, "DS_BUILD_EVOFORMER_ATTN")->value, "0");
  EXPECT_NE(find(older, "DS_BUILD_EVOFORMER_ATTN")->reason.find("torch_cuda_major < 11"), std::string::npos);
  ctx.torch_version.clear(), ctx.torch_cuda.clear();

  // An architecture below what the op accepts, and the user's choice.
  ctx.sass = {61};
  ctx.overrides = {{"DS_BUILD_FUSED_ADAM", "0"}};
  auto old = plan_for("deepspeed", ctx);
  EXPECT_EQ(find(old, "DS_BUILD_EVOFORMER_ATTN")->value, "0");
  EXPECT_NE(find(old, "DS_BUILD_EVOFORMER_ATTN")->reason.find("7.0 and above"), std::string::npos);
  EXPECT_EQ(find(old, "DS_BUILD_FUSED_ADAM")->value, "0");
  EXPECT_EQ(read::to_string(find(old, "DS_BUILD_FUSED_ADAM")->origin), "--knob");
}

TEST(ProjectKnobsFixtures, DeepSpeedOpsDecidedOnTheModulesAndFoldersTheirChecksNeed) {
  // sparse_attn's check fails without triton (try: import triton / except ImportError: return False);
  // evoformer_attn reads CUTLASS_PATH. kiln looks both up (fakes here; probe/python_modules asks the
  // interpreter) and decides the op on them.
  read::KnobContext ctx;
  ctx.has_library = [](const std::string&) { return std::optional<bool>(true); };
  auto named = [](const read::KnobPlan& kp, const std::string& what) {
    return std::any_of(kp.undecided.begin(), kp.undecided.end(),
                       [&](const std::string& u) { return u.find(what) != std::string::npos; });
  };
  ctx.has_module = [](const std::string& m) { return std::optional<bool>(m != "triton"); };
  auto without = plan_for("deepspeed", ctx);
  EXPECT_EQ(find(without, "DS_BUILD_SPARSE_ATTN")->value, "0");
  EXPECT_NE(find(without, "DS_BUILD_SPARSE_ATTN")
                ->reason.find("op_builder/sparse_attn.py:16 (import triton) needs the "
                              "Python module triton"),
            std::string::npos)
      << find(without, "DS_BUILD_SPARSE_ATTN")->reason;
  EXPECT_TRUE(named(without, "needs CUTLASS_PATH"));  // unset: the project may look elsewhere

  ctx.has_module = [](const std::string&) { return std::optional<bool>(true); };
  ctx.folder_exists = [](const std::string& var) { return std::optional<bool>(var == "CUTLASS_PATH"); };
  auto with = plan_for("deepspeed", ctx);
  EXPECT_EQ(find(with, "DS_BUILD_SPARSE_ATTN")->value, "1");
  EXPECT_FALSE(named(with, "import triton")) << ::testing::PrintToString(with.undecided);
  EXPECT_FALSE(named(with, "CUTLASS_PATH")) << ::testing::PrintToString(with.undecided);
  EXPECT_EQ(find(with, "DS_BUILD_EVOFORMER_ATTN")->value, "1");

  ctx.folder_exists = [](const std::string&) { return std::optional<bool>(false); };
  auto missing = plan_for("deepspeed", ctx);
  EXPECT_EQ(find(missing, "DS_BUILD_EVOFORMER_ATTN")->value, "0");
  EXPECT_NE(find(missing, "DS_BUILD_EVOFORMER_ATTN")->reason.find("reads CUTLASS_PATH"), std::string::npos)
      << find(missing, "DS_BUILD_EVOFORMER_ATTN")->reason;

  // Unknown answers leave the op on and the check named, as before.
  ctx.has_module = [](const std::string&) { return std::optional<bool>(); };
  ctx.folder_exists = nullptr;
  auto unknown = plan_for("deepspeed", ctx);
  EXPECT_EQ(find(unknown, "DS_BUILD_SPARSE_ATTN")->value, "1");
  EXPECT_TRUE(named(unknown, "op_builder/sparse_attn.py:16 import triton"));
}

TEST(ProjectKnobsFixtures, LlamaCppPythonOptionInAVendoredCMakeProject) {
  // README.md: CMAKE_ARGS="-DGGML_CUDA=on" pip install llama-cpp-python (scikit-build-core).
  EXPECT_EQ(kind_of("llama-cpp-python"), read::ProjectKind::cmake);
  auto kp = plan_for("llama-cpp-python");
  auto g = gates(kp);
  EXPECT_EQ(g["GGML_CUDA"], (Decided{"cuda-enable", "ON", "kiln", "vendor/llama.cpp/ggml/CMakeLists.txt:2"}));
  EXPECT_TRUE(find(kp, "GGML_CUDA")->cmake);
}

TEST(ProjectKnobsFixtures, TransformerEngineSwitchesInItsBuildToolsHelpers) {
  // README.rst: NVTE_FRAMEWORK=pytorch, NVTE_CUDA_ARCHS="80;90" (kiln: the planned 90),
  // NVTE_BUILD_THREADS_PER_JOB and MAX_JOBS for the build's parallelism.
  EXPECT_EQ(kind_of("transformer-engine"), read::ProjectKind::extension);  // a CMakeExtension of build_tools/
  read::KnobContext ctx;
  ctx.jobs = 6;
  auto g = gates(plan_for("transformer-engine", ctx));
  EXPECT_EQ(g["NVTE_CUDA_ARCHS"], (Decided{"arch-list", "90", "kiln", "build_tools/utils.py:17"}));
  EXPECT_EQ(g["NVTE_BUILD_THREADS_PER_JOB"], (Decided{"nvcc-threads", "1", "kiln", "build_tools/utils.py:13"}));
  EXPECT_EQ(g["NVTE_BUILD_MAX_JOBS"], (Decided{"jobs", "6", "kiln", "build_tools/utils.py:7"}));
  EXPECT_EQ(g["MAX_JOBS"], (Decided{"jobs", "6", "kiln", "build_tools/utils.py:9"}));
}

TEST(ProjectKnobsFixtures, AFolderThatIsNoProjectSaysWhatItFound) {
  io::FakeFilesystem fs;
  fs.add_file("/p/setup.py", "from setuptools import setup\nsetup(name='x')\n");
  fs.add_file("/p/setup.cfg", "[metadata]\nname = x\n");
  tl::expected<read::SetupPyReading, std::string> setup = read::SetupPyReading{};
  setup->files = {"setup.py"};
  EXPECT_EQ(read::detect_project_kind(fs, "/p", &setup), read::ProjectKind::unknown);
  EXPECT_EQ(read::describe_folder(fs, "/p", &setup),
            "found setup.py, which builds no extension (read with Python's ast: no Extension call or op builder in "
            "setup.py), "
            "setup.cfg but no CMakeLists.txt");
}

TEST(ProjectKnobsFixtures, AFolderOfProjectsNamesThemAndHowToBuildOne) {
  // torch-ngp b6e0804: no build file at the top; gridencoder/, raymarching/, shencoder/ and
  // freqencoder/ each have their setup.py (its README builds them one by one).
  io::FakeFilesystem fs;
  fs.add_file("/ngp/main_nerf.py", "");
  for (const char* d : {"raymarching", "gridencoder", "shencoder", "freqencoder"})
    fs.add_file(std::string("/ngp/") + d + "/setup.py", "");
  fs.add_file("/ngp/nerf/utils.py", "");
  fs.add_file("/ngp/.git/config", "");
  EXPECT_EQ(read::describe_folder(fs, "/ngp", nullptr),
            "nothing kiln can build (no CMakeLists.txt, setup.py or pyproject.toml); its subfolders are projects: "
            "freqencoder/setup.py, gridencoder/setup.py, raymarching/setup.py, shencoder/setup.py (build one with "
            "kiln build /ngp/freqencoder)");
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
  auto r = reading(
      "F = os.getenv(\"X_FORCE_BUILD\", \"FALSE\") == \"TRUE\"\nK = os.getenv(\"X_KEEP_CUDA_BUILD\", \"FALSE\") == "
      "\"TRUE\"\n");
  io::FakeEnvironment env{{{"X_FORCE_BUILD", "FALSE"}}};
  read::KnobContext ctx;
  ctx.env = &env;
  ctx.overrides = {{"X_KEEP_CUDA_BUILD", "yes"}, {"OTHER", "1"}};
  auto kp = read::decide_knobs(r, ctx);
  EXPECT_EQ(read::to_string(find(kp, "X_FORCE_BUILD")->origin), "environment");
  EXPECT_EQ(find(kp, "X_FORCE_BUILD")->value, "FALSE");
  EXPECT_FALSE(find(kp, "X_FORCE_BUILD")->sets());
  EXPECT_EQ(read::to_string(find(kp, "X_KEEP_CUDA_BUILD")->origin), "--knob");
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
  auto kp =
      read::decide_knobs(reading("Z = os.getenv(\"ZAP_MODE\", \"0\") == \"1\"\nP = os.getenv(\"SOME_PATH\")\n"), {});
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
  // Left off because the build's torch is a CPU build: that is the reason given, not "kiln sets
  // it", and a GPU would not help either.
  read::KnobContext cpu;
  cpu.torch_cpu_only = true;
  auto left = read::decide_knobs(r, cpu);
  why = read::cuda_gate_reason(left, env);
  EXPECT_NE(why.find("kiln did not set X_KEEP_CUDA_BUILD=TRUE because torch here is a CPU-only build"),
            std::string::npos)
      << why;
  EXPECT_NE(why.find("which a CPU-only torch never does"), std::string::npos) << why;
  // The CUDA torch to install is the one for the build's nvcc (cu130 was named whatever it was).
  EXPECT_NE(why.find("kiln found no nvcc"), std::string::npos) << why;  // none was named: no index guessed
  why = read::cuda_gate_reason(left, env, read::BuildMachine{false, "", "12.4.131"});
  EXPECT_NE(why.find("whl/cu124 (the index for CUDA 12.4"), std::string::npos) << why;
  EXPECT_EQ(why.find("cu130"), std::string::npos) << why;
  EXPECT_EQ(why.find("kiln sets it unless --no-knobs"), std::string::npos) << why;
  EXPECT_EQ(why.find("build on a machine with a GPU"), std::string::npos) << why;
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
    // A role is found by its names, or by what a switch does (effects, data/read_setup.py's Effects),
    // or given by the decision that names it (given_by).
    EXPECT_TRUE(r["names"].as_array() != nullptr || r["effects"].as_array() != nullptr ||
                !r["given_by"].value_or(std::string()).empty())
        << id;
    const std::vector<std::string> effects = {
        "ext:on",   "ext:off",   "cuda:on",  "cuda:off", "swallow:on", "swallow:off", "select",    "archs",   "rocm",
        "subset",   "flags",     "metadata", "fatal",    "backend:on", "backend:off", "unreached", "library", "path",
        "ninja:on", "ninja:off", "tool",     "jobs",     "packaging",  "archgate",    "parallel"};
    if (const auto* e = r["effects"].as_array())
      for (const auto& v : *e)
        EXPECT_NE(std::find(effects.begin(), effects.end(), v.value_or(std::string())), effects.end()) << id;
    if (r["when_named"].as_array()) EXPECT_NE(r["effects"].as_array(), nullptr) << id;
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

// tiny-cuda-nn 6ee3546 CMakeLists.txt:42 and 142-147 (the pattern, written here): the list comes
// from an environment variable, else a cache string of the same name. Whatever it is called, it is
// the project's architecture list, and kiln sets it in CMake's spelling.
TEST(ProjectKnobsRead, AVariableCMakeCudaArchitecturesIsSetFromIsTheArchList) {
  read::ProjectReading r;
  r.sightings = read::read_cmakelists(
      "project(t LANGUAGES CXX CUDA)\n"
      "set(MY_GPU_LIST \"\" CACHE STRING \"GPU architectures to build for\")\n"
      "if (DEFINED ENV{MY_GPU_LIST})\n"
      "  set(CMAKE_CUDA_ARCHITECTURES $ENV{MY_GPU_LIST})\n"
      "elseif (MY_GPU_LIST)\n"
      "  set(CMAKE_CUDA_ARCHITECTURES ${MY_GPU_LIST})\n"
      "endif()\n",
      "CMakeLists.txt");
  r.cuda_evidence = "CMakeLists.txt:1 project(t LANGUAGES CXX CUDA)";
  read::KnobContext ctx;
  ctx.sass = {90, 100};
  auto kp = read::decide_knobs(r, ctx);
  const auto* k = find(kp, "MY_GPU_LIST");
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(k->role, "arch-list");
  EXPECT_EQ(k->value, "90;100");
  EXPECT_TRUE(k->sets());
  // A list set from a literal stays the project's own (cmake_arch_override says so).
  read::ProjectReading lit;
  lit.sightings = read::read_cmakelists("set(OTHER_LIST \"\" CACHE STRING \"\")\nset(CMAKE_CUDA_ARCHITECTURES 80)\n",
                                        "CMakeLists.txt");
  auto none = read::decide_knobs(lit, ctx);
  const auto* o = find(none, "OTHER_LIST");
  EXPECT_TRUE(o == nullptr || o->role != "arch-list");
}

// Each origin has one spelling (the plan's JSON shows it), and reading it back gives the same origin.
TEST(ProjectKnobs, EveryOriginRoundTripsThroughItsName) {
  for (auto o : read::kKnobOrigins) EXPECT_EQ(read::knob_origin_from(read::to_string(o)), o) << read::to_string(o);
  EXPECT_EQ(read::to_string(read::KnobOrigin::knob_option), "--knob");
  EXPECT_EQ(read::knob_origin_from("user"), std::nullopt);
}

// The table's actions are each one kiln knows, and the roles C++ decides on are roles of the table:
// a misspelling in data/project_knobs.toml would otherwise leave a switch alone without a word.
TEST(ProjectKnobs, TheTableSpeaksKilnsNamesForRolesAndActions) {
  for (auto a : read::kKnobActions) EXPECT_EQ(read::knob_action_from(read::to_string(a)), a) << read::to_string(a);
  const toml::table t = data::load_toml("project_knobs.toml");
  std::set<std::string> ids;
  for (const auto& node : *t["role"].as_array()) {
    const auto& role = *node.as_table();
    ids.insert(role["id"].value_or(std::string()));
    const std::string action = role["action"].value_or(std::string("leave"));
    EXPECT_TRUE(read::knob_action_from(action)) << "role " << *role["id"].value<std::string>() << ": action " << action;
  }
  for (auto id : read::knob_roles::kFromTable) EXPECT_TRUE(ids.count(std::string(id))) << id;
  EXPECT_FALSE(ids.count(std::string(read::knob_roles::kOp)));
  EXPECT_FALSE(ids.count(std::string(read::knob_roles::kUnknown)));
}

namespace {

TEST(ProjectKnobsFixtures, PycudasiftOptionSetInSetupCfg) {
  // setup.py's build_ext takes --cuda-arch (default sm_52), or CUDA_ARCH from the environment when
  // the option is unset; setup.cfg's [build_ext] cuda_arch sets the option, so the variable loses.
  EXPECT_EQ(kind_of("pycudasift"), read::ProjectKind::extension);
  auto kp = plan_for("pycudasift");
  const auto cfg = std::find_if(kp.undecided.begin(), kp.undecided.end(),
                                [](const std::string& u) { return u.rfind("setup.cfg:7 ", 0) == 0; });
  ASSERT_NE(cfg, kp.undecided.end()) << ::testing::PrintToString(kp.undecided);
  EXPECT_NE(cfg->find("--cuda-arch"), std::string::npos) << *cfg;
  EXPECT_NE(cfg->find("setup.py:14"), std::string::npos) << *cfg;
}

}  // namespace

// The reader's words for an op's torch check and a list's spelling are read once, at the JSON
// boundary, into the enums the decisions branch on (issue 31).
TEST(ProjectKnobs, TheReadersWordsAreReadIntoEnums) {
  using Cmp = read::TorchCheck::Cmp;
  const Cmp c = Cmp::from("cuda_major", "GtE", 12);
  EXPECT_EQ(c.part, Cmp::Part::cuda_major);
  EXPECT_EQ(c.op, Cmp::Op::ge);
  EXPECT_EQ(c.value, 12);
  EXPECT_EQ(Cmp::from("major", "NotEq", 1).op, Cmp::Op::ne);
  EXPECT_EQ(Cmp::from("major", "NotEq", 1).part, Cmp::Part::major);
  EXPECT_EQ(Cmp::from("minor", "Is", 1).op, Cmp::Op::unknown);  // an operator it does not name never holds
  EXPECT_EQ(read::arch_form_from("dotted"), read::ArchForm::dotted);
  EXPECT_EQ(read::arch_form_from("numbers"), read::ArchForm::numbers);
  EXPECT_EQ(read::arch_form_from(""), read::ArchForm::unknown);
}
