// kiln's wheel cache: the key covers every input (files, plan, environment, toolchain) and nothing
// that only moves (the project's path, the build folder, the job count); entries are whole or absent.
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "core/arch_spec.hpp"
#include "io/clock.hpp"
#include "fakes/environment.hpp"
#include "fakes/fs.hpp"
#include "io/interrupt.hpp"
#include "fakes/process.hpp"
#include "io/seams.hpp"
#include "launch/wheel_cache.hpp"
#include "io/file_chunks.hpp"
#include "launch/wheel_index.hpp"
#include "temp_dir.hpp"
#include "test_support.hpp"

using namespace kiln;
using kiln::testing::TempDir;

namespace {
struct Fakes : kiln::testing::FakeSeams {
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

launch::WheelInputs plan_at(const std::string& dir) {
  launch::WheelInputs p;
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
  EXPECT_TRUE(
      differs([](Fakes& g, launch::WheelInputs&) { g.fs.add_file("/p/csrc/k.cu", "__global__ void k() { }\n"); }));
  EXPECT_TRUE(differs([](Fakes& g, launch::WheelInputs&) { g.fs.add_file("/p/csrc/new.h", ""); }));
  EXPECT_TRUE(differs([](Fakes&, launch::WheelInputs& p) { p.targets = *core::parse_cmake("90a-real", {}); }));
  EXPECT_TRUE(differs([](Fakes&, launch::WheelInputs& p) { p.prune_archs = true; }));
  EXPECT_TRUE(differs([](Fakes&, launch::WheelInputs& p) { p.nvcc_version = "13.1.0"; }));
  EXPECT_TRUE(differs([](Fakes& g, launch::WheelInputs&) { g.env.set("CXXFLAGS", "-O1"); }));
  EXPECT_TRUE(
      differs([](Fakes& g, launch::WheelInputs&) { g.proc.on("/usr/bin/c++ --version", io::ran("c++ 13.1\n")); }));
  EXPECT_TRUE(differs([](Fakes& g, launch::WheelInputs& p) {
    p.torch_package = "/venv/lib/torch";
    g.fs.add_file("/venv/lib/torch/version.py", "__version__ = '2.11.0'\n");
  }));
  EXPECT_TRUE(differs([](Fakes& g, launch::WheelInputs& p) {  // a variable the project's own build files read
    p.knobs.push_back({.name = "MYPROJ_FAST_MATH", .role = "unknown"});
    g.env.set("MYPROJ_FAST_MATH", "1");
  }));
  // Not inputs: outputs and caches inside the project.
  EXPECT_FALSE(differs([](Fakes& g, launch::WheelInputs&) { g.fs.add_file("/p/build/lib/x.so", "new output"); }));
  EXPECT_FALSE(differs([](Fakes& g, launch::WheelInputs&) { g.fs.add_file("/p/build-kiln/kiln-build.log", "log"); }));
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
  EXPECT_EQ(launch::wheel_cache_root("", env), "/root/.cache/kiln/wheels");
  env.set("XDG_CACHE_HOME", "/xdg");
  EXPECT_EQ(launch::wheel_cache_root("", env), "/xdg/kiln/wheels");
  EXPECT_EQ(launch::wheel_cache_root("/ci/cache", env), "/ci/cache/kiln-wheels");
  EXPECT_EQ(launch::wheel_cache_root("", io::FakeEnvironment{}), "");
}

// ---- Issue 23: what the cache keeps, it keeps whole; what it reads, it reads safely. ----

namespace {

launch::WheelKey key_n(int i) {
  return {std::string(31, '0') + std::to_string(i), "inputs " + std::to_string(i) + "\n", 1};
}

void write_file(const std::string& path, const std::string& text) {
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  std::ofstream(path, std::ios::binary) << text;
}

}  // namespace

TEST(WheelCache, ACorruptWheelOfTheRightSizeIsDroppedNotInstalled) {
  Fakes f;
  f.fs.add_file("/w/x-1.0-py3-none-any.whl", "PK good bytes");
  const auto k = key_n(1);
  ASSERT_TRUE(launch::store_wheel(f.fs, "/c", k, "/w/x-1.0-py3-none-any.whl"));
  ASSERT_TRUE(launch::find_cached_wheel(f.fs, "/c", k));
  f.fs.add_file("/c/" + k.hex + ".whl", "PK BAD bytes");  // same size, other content (pip: "Bad CRC-32")
  EXPECT_FALSE(launch::find_cached_wheel(f.fs, "/c", k));
  EXPECT_FALSE(f.fs.exists("/c/" + k.hex + ".manifest"));  // dropped: the next build stores a good one
  EXPECT_FALSE(f.fs.exists("/c/" + k.hex + ".whl"));
  EXPECT_EQ(launch::parse_wheel_index(*f.fs.read("/c/index")), std::vector<std::string>{});
}

TEST(WheelCache, IndexLinesThatAreNotKeysAreNeverFollowed) {
  Fakes f;
  f.fs.add_file("/x/data.manifest", "precious");
  f.fs.add_file("/x/data.whl", "precious");
  f.fs.add_file("/w/x-1.0-py3-none-any.whl", "wheel");
  f.fs.add_file("/c/index", "../../x/data\n/x/data\n" + std::string(32, 'Z') + "\n");
  EXPECT_EQ(launch::parse_wheel_index(*f.fs.read("/c/index")), std::vector<std::string>{});
  ASSERT_TRUE(launch::store_wheel(f.fs, "/c", key_n(1), "/w/x-1.0-py3-none-any.whl", 1));
  ASSERT_TRUE(launch::store_wheel(f.fs, "/c", key_n(2), "/w/x-1.0-py3-none-any.whl", 1));  // evicts
  EXPECT_TRUE(f.fs.exists("/x/data.manifest"));
  EXPECT_TRUE(f.fs.exists("/x/data.whl"));
  EXPECT_EQ(*f.fs.read("/c/index"), key_n(2).hex + "\n");
}

TEST(WheelCache, ALostIndexIsRebuiltFromDiskSoEvictionStillCounts) {
  Fakes f;
  f.fs.add_file("/w/x-1.0-py3-none-any.whl", "wheel");
  for (int i = 0; i < 4; ++i) ASSERT_TRUE(launch::store_wheel(f.fs, "/c", key_n(i), "/w/x-1.0-py3-none-any.whl", 8));
  f.fs.remove("/c/index");  // lost (or rewritten by a racing store that listed only its own)
  ASSERT_TRUE(launch::store_wheel(f.fs, "/c", key_n(4), "/w/x-1.0-py3-none-any.whl", 3));
  size_t manifests = 0;
  for (const auto& n : f.fs.list("/c")) manifests += n.ends_with(".manifest");
  EXPECT_EQ(manifests, 3u);  // not 5 kept of 3
  EXPECT_EQ(launch::parse_wheel_index(*f.fs.read("/c/index")).size(), 3u);
  EXPECT_TRUE(launch::find_cached_wheel(f.fs, "/c", key_n(4)));
}

TEST(WheelCache, ConcurrentStoresAreAllListed) {
  TempDir d;
  io::RealFilesystem fs;
  write_file(d / "w/x-1.0-py3-none-any.whl", "wheel");
  std::vector<std::thread> threads;
  for (int i = 0; i < 6; ++i)
    threads.emplace_back([&, i] {
      io::RealFilesystem own;
      launch::store_wheel(own, d / "c", key_n(i), d / "w/x-1.0-py3-none-any.whl", 8);
    });
  for (auto& t : threads) t.join();
  EXPECT_EQ(launch::parse_wheel_index(*fs.read(d / "c/index")).size(), 6u);
}

TEST(WheelCache, ALinkInTheCacheIsNeitherFollowedNorWrittenThrough) {
  TempDir d;
  io::RealFilesystem fs;
  write_file(d / "w/x-1.0-py3-none-any.whl", "new wheel");
  write_file(d / "victim", "precious");
  const auto k = key_n(1);
  ASSERT_TRUE(launch::store_wheel(fs, d / "c", k, d / "w/x-1.0-py3-none-any.whl"));
  std::filesystem::remove(d / ("c/" + k.hex + ".whl"));
  std::filesystem::create_symlink(d / "victim", d / ("c/" + k.hex + ".whl"));
  EXPECT_FALSE(launch::find_cached_wheel(fs, d / "c", k));  // not a hit through the link
  ASSERT_TRUE(launch::store_wheel(fs, d / "c", k, d / "w/x-1.0-py3-none-any.whl"));
  EXPECT_EQ(*fs.read(d / "victim"), "precious");  // replaced the link, did not write through it
  EXPECT_FALSE(fs.is_symlink(d / ("c/" + k.hex + ".whl")));
  EXPECT_TRUE(launch::find_cached_wheel(fs, d / "c", k));
}

namespace {
// A disk that fills up under the cache folder: writes there fail (as a checked flush reports ENOSPC).
struct FullUnder final : io::Filesystem {
  io::FakeFilesystem& in;
  std::string full;
  FullUnder(io::FakeFilesystem& f, std::string dir) : in(f), full(std::move(dir)) {}
  bool exists(const std::string& p) const override { return in.exists(p); }
  bool is_directory(const std::string& p) const override { return in.is_directory(p); }
  bool is_executable(const std::string& p) const override { return in.is_executable(p); }
  std::optional<std::string> read(const std::string& p) const override { return in.read(p); }
  std::vector<std::string> list(const std::string& d) const override { return in.list(d); }
  bool write(const std::string& p, const std::string& c) override {
    if (p.rfind(full, 0) == 0 && !p.ends_with("/index.lock")) return false;
    return in.write(p, c);
  }
  bool make_dirs(const std::string& p) override { return in.make_dirs(p); }
  bool remove(const std::string& p) override { return in.remove(p); }
};
}  // namespace

TEST(WheelCache, AFullDiskLeavesNoEntryAndSaysNotStored) {
  Fakes f;
  f.fs.add_file("/w/x-1.0-py3-none-any.whl", "wheel");
  FullUnder full(f.fs, "/c/");
  EXPECT_FALSE(launch::store_wheel(full, "/c", key_n(1), "/w/x-1.0-py3-none-any.whl"));
  for (const auto& n : f.fs.list("/c")) ADD_FAILURE() << "left behind: " << n;
  EXPECT_FALSE(launch::find_cached_wheel(f.fs, "/c", key_n(1)));
  // The real filesystem reports the failure of the flush (a buffered write fails only there).
  io::RealFilesystem real;
  EXPECT_FALSE(real.write("/dev/full", "wheel bytes"));
}

TEST(WheelCache, ALinkedFolderIsHashedByWhatItHolds) {
  TempDir d;
  write_file(d / "p/setup.py", "setup()\n");
  write_file(d / "v1/k.cu", "__global__ void k() {}\n");
  write_file(d / "v2/k.cu", "__global__ void k() { /* v2 */ }\n");
  std::filesystem::create_directory_symlink(d / "v1", d / "p/csrc");
  std::filesystem::create_directory_symlink(d / "p", d / "p/loop");  // a loop costs one walk, not forever
  kiln::testing::SeamsOf<io::RealFilesystem> t;
  t.proc.on("/usr/bin/c++ --version", io::ran("c++ 12\n"));
  const auto before = launch::wheel_key(plan_at(d / "p"), t.seams);
  std::filesystem::remove(d / "p/csrc");
  std::filesystem::create_directory_symlink(d / "v2", d / "p/csrc");  // retargeted
  const auto after = launch::wheel_key(plan_at(d / "p"), t.seams);
  EXPECT_NE(before.hex, after.hex);
  EXPECT_NE(after.manifest.find("file csrc/k.cu"), std::string::npos) << after.manifest;
}

TEST(WheelCache, AFifoInTheProjectIsNamedNotRead) {
  TempDir d;
  write_file(d / "p/setup.py", "setup()\n");
  ASSERT_EQ(::mkfifo((d / "p/pipe").c_str(), 0600), 0);
  kiln::testing::SeamsOf<io::RealFilesystem> t;
  t.proc.on("/usr/bin/c++ --version", io::ran("c++ 12\n"));
  const auto k = launch::wheel_key(plan_at(d / "p"), t.seams);  // a read would block here for ever
  EXPECT_NE(k.manifest.find("special pipe"), std::string::npos) << k.manifest;
  EXPECT_EQ(k.files, 1u);
}

TEST(WheelCache, ABigFileIsHashedInPieces) {
  TempDir d;
  io::RealFilesystem fs;
  const std::string big(3 * 65536 + 17, 'x');
  write_file(d / "big", big);
  size_t pieces = 0, largest = 0, total = 0;
  ASSERT_TRUE(io::read_chunks(fs, d / "big", [&](std::string_view c) {
    ++pieces, total += c.size();
    largest = std::max(largest, c.size());
  }));
  EXPECT_EQ(total, big.size());
  EXPECT_GE(pieces, 4u);
  EXPECT_LE(largest, 65536u);
  EXPECT_FALSE(io::read_chunks(fs, "/dev/zero", [](std::string_view) {}));  // never ends: refused
}

// Issue 23: a stop during the wheel-key hashing is honoured (the backend, the store and pip all ran
// before): the walk ends at once, so the build's next step (which refuses to start) comes soon.
TEST(WheelCache, HashingStopsWhenTheBuildIsStopped) {
  Fakes f;
  f.project("/p");
  for (int i = 0; i < 100; ++i) f.fs.add_file("/p/src/f" + std::to_string(i) + ".cpp", "int x;\n");
  EXPECT_EQ(launch::wheel_key(plan_at("/p"), f.seams).files, 102u);
  io::BuildInterrupts interrupts(std::chrono::seconds(30));
  ::raise(SIGTERM);  // handled: recorded, forwarded to no tool (none runs)
  ASSERT_EQ(io::BuildInterrupts::received(), SIGTERM);
  EXPECT_EQ(launch::wheel_key(plan_at("/p"), f.seams).files, 0u);
}
