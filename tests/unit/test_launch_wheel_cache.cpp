// kiln's wheel cache: the key covers every input (files, plan, environment, toolchain) and nothing
// that only moves (the project's path, the build folder, the job count); entries are whole or absent.
#include <gtest/gtest.h>

#include <sstream>

#include "core/arch_spec.hpp"
#include "io/clock.hpp"
#include "io/environment.hpp"
#include "io/fs.hpp"
#include "io/process.hpp"
#include "io/seams.hpp"
#include "launch/wheel_cache.hpp"

using namespace kiln;

namespace {
struct Fakes {
  io::FakeFilesystem fs;
  io::FakeProcessRunner proc;
  io::FakeClock clock;
  io::FakeEnvironment env;
  std::ostringstream out, err;
  io::Seams seams{fs, proc, clock, env, out, err};
  Fakes() { proc.on("/usr/bin/c++ --version", io::ran("c++ (Debian 12.2.0-14) 12.2.0\n")); }
  void project(const std::string& dir) {
    fs.add_file(dir + "/setup.py", "from torch.utils.cpp_extension import CUDAExtension\n");
    fs.add_file(dir + "/csrc/k.cu", "__global__ void k() {}\n");
    fs.add_file(dir + "/build/temp/k.o", "object from an earlier build");
    fs.add_file(dir + "/.git/HEAD", "ref: refs/heads/main\n");
    fs.add_file(dir + "/pkg/__pycache__/x.cpython-312.pyc", "bytecode");
    fs.add_file(dir + "/pkg.egg-info/PKG-INFO", "Name: pkg\n");
  }
};

plan::Plan plan_at(const std::string& dir) {
  plan::Plan p;
  p.kind = read::ProjectKind::extension;
  p.project_dir = dir;
  p.build_dir = dir + "/build-kiln";
  p.python = "/venv/bin/python3";
  p.nvcc = "/usr/local/cuda/bin/nvcc";
  p.nvcc_version = "13.0.88";
  p.real_cxx = "/usr/bin/c++";
  p.build_type = "Release";
  p.targets = *core::parse_cmake("90-real", {});
  p.env = {{"TORCH_CUDA_ARCH_LIST", "9.0"}, {"MAX_JOBS", "16"}, {"CXX", p.build_dir + "/.kiln/bin/c++"}};
  return p;
}
}  // namespace

TEST(WheelCache, TheSameInputsAtAnotherPathGiveTheSameKey) {
  Fakes f;
  f.project("/a/proj");
  f.project("/b/copy");
  auto pa = plan_at("/a/proj");
  auto pb = plan_at("/b/copy");
  pb.env["MAX_JOBS"] = "2";  // another machine's job count: scheduling only
  auto a = launch::wheel_key(pa, f.seams);
  auto b = launch::wheel_key(pb, f.seams);
  EXPECT_EQ(a.hex.size(), 32u);
  EXPECT_EQ(a.hex, b.hex);
  EXPECT_EQ(a.files, 2u);  // setup.py and csrc/k.cu: build/, .git, __pycache__ and *.egg-info are not inputs
  EXPECT_NE(a.manifest.find("cxx /usr/bin/c++ c++ (Debian 12.2.0-14) 12.2.0"), std::string::npos);
  EXPECT_NE(a.manifest.find("env CXX=<build>/.kiln/bin/c++"), std::string::npos);
}

TEST(WheelCache, EveryKindOfInputChangesTheKey) {
  Fakes f;
  f.project("/p");
  const auto base = launch::wheel_key(plan_at("/p"), f.seams).hex;
  auto differs = [&](auto change) {
    Fakes g;
    g.project("/p");
    auto p = plan_at("/p");
    change(g, p);
    return launch::wheel_key(p, g.seams).hex != base;
  };
  EXPECT_TRUE(differs([](Fakes& g, plan::Plan&) { g.fs.add_file("/p/csrc/k.cu", "__global__ void k() { }\n"); }));
  EXPECT_TRUE(differs([](Fakes& g, plan::Plan&) { g.fs.add_file("/p/csrc/new.h", ""); }));
  EXPECT_TRUE(differs([](Fakes&, plan::Plan& p) { p.targets = *core::parse_cmake("90a-real", {}); }));
  EXPECT_TRUE(differs([](Fakes&, plan::Plan& p) { p.prune_archs = true; }));
  EXPECT_TRUE(differs([](Fakes&, plan::Plan& p) { p.nvcc_version = "13.1.0"; }));
  EXPECT_TRUE(differs([](Fakes& g, plan::Plan&) { g.env.set("CXXFLAGS", "-O1"); }));
  EXPECT_TRUE(differs([](Fakes& g, plan::Plan&) { g.proc.on("/usr/bin/c++ --version", io::ran("c++ 13.1\n")); }));
  EXPECT_TRUE(differs([](Fakes& g, plan::Plan& p) {
    p.torch_package = "/venv/lib/torch";
    g.fs.add_file("/venv/lib/torch/version.py", "__version__ = '2.11.0'\n");
  }));
  EXPECT_TRUE(differs([](Fakes& g, plan::Plan& p) {  // a variable the project's own build files read
    p.knobs.knobs.push_back({.name = "MYPROJ_FAST_MATH", .role = "unknown"});
    g.env.set("MYPROJ_FAST_MATH", "1");
  }));
  // Not inputs: outputs and caches inside the project.
  EXPECT_FALSE(differs([](Fakes& g, plan::Plan&) { g.fs.add_file("/p/build/lib/x.so", "new output"); }));
  EXPECT_FALSE(differs([](Fakes& g, plan::Plan&) { g.fs.add_file("/p/build-kiln/kiln-build.log", "log"); }));
}

TEST(WheelCache, StoreThenFindOnlyWholeEntriesWithTheSameInputs) {
  Fakes f;
  f.project("/p");
  auto key = launch::wheel_key(plan_at("/p"), f.seams);
  f.fs.add_file("/p/build-kiln/wheel/pkg-1.0-cp312-cp312-linux_x86_64.whl", "PK wheel bytes");
  EXPECT_FALSE(launch::find_cached_wheel(f.fs, "/cache", key));
  ASSERT_TRUE(launch::store_wheel(f.fs, "/cache", key, "/p/build-kiln/wheel/pkg-1.0-cp312-cp312-linux_x86_64.whl"));
  auto hit = launch::find_cached_wheel(f.fs, "/cache", key);
  ASSERT_TRUE(hit);
  EXPECT_EQ(hit->name, "pkg-1.0-cp312-cp312-linux_x86_64.whl");
  EXPECT_EQ(*f.fs.read(hit->path), "PK wheel bytes");
  // The same hash with other inputs (a collision, or a tampered manifest) is not a hit.
  auto other = key;
  other.manifest += "file extra 0 0\n";
  EXPECT_FALSE(launch::find_cached_wheel(f.fs, "/cache", other));
  // A wheel whose size is not the manifest's (cut short while written) is not a hit.
  f.fs.add_file(hit->path, "PK wheel");
  EXPECT_FALSE(launch::find_cached_wheel(f.fs, "/cache", key));
  // No cache folder: nothing is kept, nothing is found.
  EXPECT_FALSE(launch::store_wheel(f.fs, "", key, "/p/build-kiln/wheel/pkg-1.0-cp312-cp312-linux_x86_64.whl"));
}

TEST(WheelCache, KeepsTheMostRecentlyUsedEntries) {
  Fakes f;
  f.fs.add_file("/w/x-1.0-py3-none-any.whl", "wheel");
  std::vector<launch::WheelKey> keys;
  for (int i = 0; i < 3; ++i) {
    launch::WheelKey k{std::string(31, '0') + std::to_string(i), "inputs " + std::to_string(i) + "\n", 1};
    keys.push_back(k);
  }
  ASSERT_TRUE(launch::store_wheel(f.fs, "/c", keys[0], "/w/x-1.0-py3-none-any.whl", 2));
  ASSERT_TRUE(launch::store_wheel(f.fs, "/c", keys[1], "/w/x-1.0-py3-none-any.whl", 2));
  launch::touch_wheel(f.fs, "/c", keys[0], 2);  // 0 used again: 1 is now the oldest
  ASSERT_TRUE(launch::store_wheel(f.fs, "/c", keys[2], "/w/x-1.0-py3-none-any.whl", 2));
  EXPECT_TRUE(launch::find_cached_wheel(f.fs, "/c", keys[0]));
  EXPECT_FALSE(launch::find_cached_wheel(f.fs, "/c", keys[1]));
  EXPECT_FALSE(f.fs.exists("/c/" + keys[1].hex + ".whl"));
  EXPECT_TRUE(launch::find_cached_wheel(f.fs, "/c", keys[2]));
}

TEST(WheelCache, TheFolderFollowsTheCacheDirElseXdgElseHome) {
  io::FakeEnvironment env;
  env.set("HOME", "/root");
  plan::Plan p;
  EXPECT_EQ(launch::wheel_cache_root(p, env), "/root/.cache/kiln/wheels");
  env.set("XDG_CACHE_HOME", "/xdg");
  EXPECT_EQ(launch::wheel_cache_root(p, env), "/xdg/kiln/wheels");
  p.cache_dir = "/ci/cache";
  EXPECT_EQ(launch::wheel_cache_root(p, env), "/ci/cache/kiln-wheels");
  EXPECT_EQ(launch::wheel_cache_root(plan::Plan{}, io::FakeEnvironment{}), "");
}
