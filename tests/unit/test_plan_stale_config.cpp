// A configuration that cannot go stale, and libtorch projects: planned against fake files.
#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>

#include "fakes/process.hpp"
#include "io/isolated_python.hpp"
#include "plan/make_plan.hpp"
#include "plan/stale_config.hpp"
#include "read/torch_package.hpp"
#include "test_support.hpp"

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
    for (const char* t : {"/usr/bin/python3", "/usr/bin/ninja", "/usr/bin/cmake"}) fs.add_file(t, "", true);
    fs.add_file("/usr/local/cuda/bin/nvcc", "", true);
    proc.on("/usr/local/cuda/bin/nvcc --version", io::ran("Cuda compilation tools, release 13.0, V13.0.88\n"));
    proc.on("/usr/local/cuda/bin/nvcc --list-gpu-code", io::ran("sm_75 sm_80 sm_86 sm_89 sm_90 sm_100 sm_120\n"));
    proc.on("/usr/local/cuda/bin/nvcc --list-gpu-arch", io::ran(""));
    machine.cores = 8;
    machine.mem_total = machine.mem_available = 32ULL << 30;
  }
  tl::expected<plan::Plan, plan::PlanError> plan(const std::string& dir, plan::BuildRequest r) {
    r.project_dir = dir;
    r.ccache = false;
    return plan::make_plan(r, seams, gpus, machine);
  }
};

bool has(const std::vector<std::string>& v, const std::string& x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

}  // namespace

TEST(StaleConfig, FirstConfigureHasNothingStale) {
  Harness h;
  h.fs.add_file("/p/CMakeLists.txt", "project(p CXX)\n");
  auto p = h.plan("/p", {.archs = "9.0", .sets = {"FEATURE=ON"}});
  ASSERT_TRUE(p) << p.error().message;
  EXPECT_FALSE(p->config.cache_exists);
  EXPECT_TRUE(p->config.changed.empty());
  EXPECT_EQ(plan::planned_entries(*p).at("FEATURE"), "ON");
  EXPECT_EQ(plan::planned_entries(*p).at("CMAKE_CUDA_ARCHITECTURES"), "90-real");
}

TEST(StaleConfig, CmakeProjectNamesChangesAndRemovesDroppedEntries) {
  Harness h;
  h.fs.add_file("/p/CMakeLists.txt", "project(p CXX)\n");
  h.fs.add_file(
      "/p/build-kiln/CMakeCache.txt",
      "FEATURE:BOOL=ON\nOTHER:STRING=x\nCMAKE_BUILD_TYPE:STRING=Release\nCMAKE_CUDA_ARCHITECTURES:STRING=80-real\n"
      "SOME_DEP:INTERNAL=1\n");
  h.fs.add_file("/p/build-kiln/.kiln-configure.json", plan::stamp_text({{"FEATURE", "ON"},
                                                                        {"OTHER", "x"},
                                                                        {"CMAKE_BUILD_TYPE", "Release"},
                                                                        {"CMAKE_CUDA_ARCHITECTURES", "80-real"}}));
  auto p = h.plan("/p", {.archs = "9.0", .sets = {"FEATURE=1"}});
  ASSERT_TRUE(p) << p.error().message;
  EXPECT_TRUE(p->config.cache_exists);
  EXPECT_FALSE(p->config.reconfigure);      // CMake projects: -D and -U on the configure kiln runs anyway
  ASSERT_EQ(p->config.changed.size(), 1u);  // FEATURE=1 is FEATURE:BOOL=ON: no change
  EXPECT_EQ(p->config.changed[0].key, "CMAKE_CUDA_ARCHITECTURES");
  EXPECT_EQ(p->config.changed[0].cached, "80-real");
  EXPECT_EQ(p->config.changed[0].planned, "90-real");
  EXPECT_EQ(p->config.dropped, (std::vector<std::string>{"OTHER"}));
  const auto argv = p->configure_argv();
  auto u = std::find(argv.begin(), argv.end(), "-U");
  ASSERT_NE(u, argv.end());
  EXPECT_EQ(*(u + 1), "OTHER");
  EXPECT_NE(p->config.how.find("-U OTHER"), std::string::npos);
}

TEST(StaleConfig, PyTorchReconfiguresThroughCmakeFreshOrByRemovingTheCache) {
  Harness h;
  h.fs.add_file("/pt/CMakeLists.txt",
                "include(CMakeDependentOption)\noption(USE_CUDA \"c\" ON)\noption(USE_DISTRIBUTED \"d\" ON)\n"
                "cmake_dependent_option(USE_GLOO \"g\" ON \"USE_DISTRIBUTED\" OFF)\n");
  h.fs.add_dir("/pt/torchgen");
  h.fs.add_file("/pt/setup.py", "RERUN_CMAKE = str2bool(os.environ.pop(\"CMAKE_FRESH\", None))\n");
  h.fs.add_file("/pt/build/CMakeCache.txt",
                "USE_CUDA:BOOL=0\nUSE_DISTRIBUTED:BOOL=ON\nUSE_GLOO:BOOL=ON\nCMAKE_BUILD_TYPE:STRING=Release\n");
  h.fs.add_file("/pt/build/.kiln-configure.json",
                plan::stamp_text({{"USE_CUDA", "OFF"}, {"CMAKE_BUILD_TYPE", "Release"}}));
  auto same = h.plan("/pt", {.sets = {"USE_CUDA=0"}});
  ASSERT_TRUE(same) << same.error().message;
  EXPECT_FALSE(same->config.reconfigure);
  EXPECT_EQ(same->env.count("CMAKE_FRESH"), 0u);

  auto p = h.plan("/pt", {.sets = {"USE_CUDA=0", "USE_DISTRIBUTED=0"}});
  ASSERT_TRUE(p) << p.error().message;
  EXPECT_TRUE(p->config.reconfigure);
  ASSERT_EQ(p->config.changed.size(), 1u);
  EXPECT_EQ(p->config.changed[0].key, "USE_DISTRIBUTED");
  EXPECT_EQ(p->env.at("CMAKE_FRESH"), "1");

  // An older setup.py that does not read CMAKE_FRESH: kiln removes the cache itself.
  h.fs.add_file("/pt/setup.py", "# no fresh here\n");
  auto old = h.plan("/pt", {.sets = {"USE_CUDA=0", "USE_DISTRIBUTED=0"}});
  ASSERT_TRUE(old);
  EXPECT_TRUE(old->config.reconfigure);
  EXPECT_EQ(old->env.count("CMAKE_FRESH"), 0u);
  EXPECT_NE(old->config.how.find("kiln removes /pt/build/CMakeCache.txt"), std::string::npos) << old->config.how;

  // Dropping a --set value: the cache keeps it, so a fresh configure is needed too.
  h.fs.add_file("/pt/build/.kiln-configure.json",
                plan::stamp_text({{"USE_CUDA", "OFF"}, {"USE_DISTRIBUTED", "ON"}, {"CMAKE_BUILD_TYPE", "Release"}}));
  auto dropped = h.plan("/pt", {.sets = {"USE_CUDA=0"}});
  ASSERT_TRUE(dropped);
  EXPECT_EQ(dropped->config.dropped, (std::vector<std::string>{"USE_DISTRIBUTED"}));
  EXPECT_TRUE(dropped->config.reconfigure);
}

TEST(StaleConfig, WhatCmakeChangedItselfIsShownNotReconfigured) {
  Harness h;
  h.fs.add_file("/pt/CMakeLists.txt", "option(USE_CUDA \"c\" ON)\noption(USE_CUDNN \"d\" ON)\n");
  h.fs.add_dir("/pt/torchgen");
  h.fs.add_file("/pt/setup.py", "");
  // kiln passed USE_CUDNN=1 last time; CMake turned it off (no cuDNN found).
  h.fs.add_file("/pt/build/CMakeCache.txt", "USE_CUDA:BOOL=0\nUSE_CUDNN:BOOL=OFF\nCMAKE_BUILD_TYPE:STRING=Release\n");
  h.fs.add_file("/pt/build/.kiln-configure.json",
                plan::stamp_text({{"USE_CUDA", "OFF"}, {"USE_CUDNN", "ON"}, {"CMAKE_BUILD_TYPE", "Release"}}));
  auto p = h.plan("/pt", {.sets = {"USE_CUDA=0", "USE_CUDNN=1"}});
  ASSERT_TRUE(p) << p.error().message;
  EXPECT_FALSE(p->config.reconfigure);
  ASSERT_EQ(p->config.cmake_changed.size(), 1u);
  EXPECT_NE(p->config.cmake_changed[0].find("USE_CUDNN"), std::string::npos);
}

// CMake refuses a cache made in another folder or from another source before it reads an entry
// (real messages: tests/e2e/stale_config_cmake.sh asks cmake itself).
TEST(StaleConfig, MovedBuildFolderIsConfiguredAfresh) {
  Harness h;
  h.fs.add_file("/p/CMakeLists.txt", "project(p CXX)\n");
  h.fs.add_file("/p/out/CMakeCache.txt",
                "CMAKE_CACHEFILE_DIR:INTERNAL=/old/out\nCMAKE_HOME_DIRECTORY:INTERNAL=/p\nFEATURE:BOOL=ON\n");
  auto p = h.plan("/p", {.build_dir = "/p/out", .archs = "9.0"});
  ASSERT_TRUE(p) << p.error().message;
  EXPECT_EQ(p->config.created_in, "/old/out");
  EXPECT_TRUE(p->config.reconfigure);
  EXPECT_TRUE(p->config.changed.empty());  // nothing in that cache counts here
  EXPECT_NE(p->config.how.find("was created in /old/out"), std::string::npos) << p->config.how;
  EXPECT_EQ(p->env.count("CMAKE_FRESH"), 0u);  // kiln removes the cache itself

  // Moved together with its source (an in-tree build folder): both paths are old, still afresh.
  h.fs.add_file("/p/out/CMakeCache.txt",
                "CMAKE_CACHEFILE_DIR:INTERNAL=/old/p/out\nCMAKE_HOME_DIRECTORY:INTERNAL=/old/p\n");
  auto both = h.plan("/p", {.build_dir = "/p/out", .archs = "9.0"});
  ASSERT_TRUE(both) << both.error().message;
  EXPECT_EQ(both->config.created_in, "/old/p/out");
  EXPECT_TRUE(both->config.made_for.empty());

  // Made here, from this source (a trailing slash is the same folder): nothing to do.
  h.fs.add_file("/p/out/CMakeCache.txt", "CMAKE_CACHEFILE_DIR:INTERNAL=/p/out/\nCMAKE_HOME_DIRECTORY:INTERNAL=/p\n");
  auto here = h.plan("/p", {.build_dir = "/p/out", .archs = "9.0"});
  ASSERT_TRUE(here) << here.error().message;
  EXPECT_TRUE(here->config.created_in.empty());
  EXPECT_FALSE(here->config.reconfigure);
}

TEST(StaleConfig, AnotherProjectsBuildFolderIsRefusedNotRemoved) {
  Harness h;
  h.fs.add_file("/p/CMakeLists.txt", "project(p CXX)\n");
  h.fs.add_file("/shared/CMakeCache.txt", "CMAKE_CACHEFILE_DIR:INTERNAL=/shared\nCMAKE_HOME_DIRECTORY:INTERNAL=/q\n");
  auto p = h.plan("/p", {.build_dir = "/shared", .archs = "9.0"});
  ASSERT_FALSE(p);
  EXPECT_TRUE(p.error().usage);
  EXPECT_NE(p.error().message.find("configured from the source /q, not /p"), std::string::npos) << p.error().message;
  EXPECT_TRUE(h.fs.exists("/shared/CMakeCache.txt"));
}

TEST(Libtorch, RecognisesFindPackageTorchAndPassesTorchArchList) {
  Harness h;
  h.fs.add_file(
      "/app/CMakeLists.txt",
      "project(app CXX CUDA)\n# find_package(Torch) in a comment does not count\ninclude(cmake/deps.cmake)\n");
  h.fs.add_file("/app/cmake/deps.cmake", "find_package(Torch REQUIRED)\n");
  EXPECT_TRUE(read::uses_torch_package(h.fs, "/app"));
  h.fs.add_file("/plain/CMakeLists.txt", "project(x)\n# find_package(Torch)\n");
  EXPECT_FALSE(read::uses_torch_package(h.fs, "/plain"));

  // Found through python's find_spec, without importing torch.
  h.proc.on(io::isolated_python_line("/usr/bin/python3", read::torch_find_spec_script(), io::PythonSite::needed),
            io::ran("/site/torch\n"));
  // A torch without CMake files (Debian's python3-torch 1.13 here; tatsy/torchmcubes 3381600d's
  // find_package(Torch CONFIG REQUIRED) met it): the error says what to do, not only what is missing.
  auto none = h.plan("/app", {.gpus = {"h100"}});
  ASSERT_FALSE(none);
  for (const char* what : {"/site/torch", "/usr/bin/python3", "pip install torch", "--python", "Torch_DIR"})
    EXPECT_NE(none.error().message.find(what), std::string::npos) << what << " in " << none.error().message;
  h.fs.add_file("/site/torch/share/cmake/Torch/TorchConfig.cmake", "");
  auto p = h.plan("/app", {.gpus = {"h100"}});
  ASSERT_TRUE(p) << p.error().message;
  EXPECT_TRUE(p->libtorch());
  EXPECT_EQ(p->torch_dir, "/site/torch/share/cmake/Torch");
  EXPECT_EQ(p->torch_arch_list, "9.0");
  const auto argv = p->configure_argv();
  EXPECT_TRUE(has(argv, "-DTorch_DIR=/site/torch/share/cmake/Torch"));
  EXPECT_TRUE(has(argv, "-DTORCH_CUDA_ARCH_LIST=9.0"));
  EXPECT_EQ(p->child_env(h.env).at("TORCH_CUDA_ARCH_LIST"), "9.0");

  // $LIBTORCH wins over python; a wrong one is an error that names it.
  h.env.set("LIBTORCH", "/opt/libtorch");
  auto bad = h.plan("/app", {.gpus = {"h100"}});
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find("LIBTORCH=/opt/libtorch"), std::string::npos);
  h.fs.add_file("/opt/libtorch/share/cmake/Torch/TorchConfig.cmake", "");
  auto lib = h.plan("/app", {.gpus = {"h100"}});
  ASSERT_TRUE(lib);
  EXPECT_EQ(lib->torch_dir_how, "LIBTORCH");
  // PTX alone cannot be said in TORCH_CUDA_ARCH_LIST: refused before CMake runs.
  EXPECT_FALSE(h.plan("/app", {.archs = "compute_90", .archs_from = "nvcc"}));
}
