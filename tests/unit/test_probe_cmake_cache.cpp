// CMakeCache.txt audit: the seeds' USE_CUPTI=ON with CUPTI_LIBRARY NOTFOUND, recorded libraries
// that vanished or do not load, and the configuration summary.
#include <gtest/gtest.h>

#include "fakes/process.hpp"
#include "doctor_test_util.hpp"
#include "probe/cmake_cache.hpp"

using namespace kiln;
using namespace kiln::probe;

namespace {

const Finding* find(const Findings& f, const std::string& code) {
  for (const auto& x : f)
    if (x.code == code) return &x;
  return nullptr;
}

const char* kCache = R"(# This is the CMakeCache file.
//Build type
CMAKE_BUILD_TYPE:STRING=Release
CMAKE_COMMAND:INTERNAL=/usr/bin/cmake
CMAKE_GENERATOR:INTERNAL=Ninja
CMAKE_CXX_COMPILER:FILEPATH=/usr/bin/g++
CMAKE_CUDA_COMPILER:FILEPATH=/usr/local/cuda/bin/nvcc
CMAKE_CUDA_ARCHITECTURES:STRING=80;90
CMAKE_CXX_COMPILER_LAUNCHER:STRING=/usr/bin/ccache
USE_CUPTI:BOOL=ON
CUPTI_LIBRARY:FILEPATH=NOTFOUND
LIBKINETO_NOCUPTI:BOOL=OFF
USE_CUDNN:BOOL=ON
CUDNN_LIBRARY:FILEPATH=/usr/local/cuda/lib64/libcudnn.so
USE_NCCL:BOOL=OFF
NCCL_LIBRARY:FILEPATH=NCCL_LIBRARY-NOTFOUND
ZLIB_LIBRARY:FILEPATH=/usr/lib/x86_64-linux-gnu/libz.so
OLD_LIBRARY:FILEPATH=/gone/libold.so.1
"QUOTED NAME":STRING=x
)";

}  // namespace

TEST(CmakeCache, ParsesEntriesAndSkipsComments) {
  auto e = parse_cmake_cache(kCache);
  ASSERT_GE(e.size(), 16u);
  EXPECT_EQ(e[0].name, "CMAKE_BUILD_TYPE");
  EXPECT_EQ(e[0].type, "STRING");
  EXPECT_EQ(e[0].value, "Release");
  EXPECT_EQ(e[0].line, 3);
  EXPECT_EQ(e.back().name, "QUOTED NAME");
  EXPECT_TRUE(cmake_true("on"));
  EXPECT_FALSE(cmake_true("OFF"));
  EXPECT_TRUE(cmake_notfound("NCCL_LIBRARY-NOTFOUND"));
}

TEST(CmakeCache, TheSeedsCuptiCaseAndVanishedLibraries) {
  doctest::FakeSeams t;
  t.fs.add_file("/b/CMakeCache.txt", kCache);
  t.fs.add_file("/usr/bin/g++", "", true);
  t.fs.add_file("/usr/local/cuda/bin/nvcc", "", true);
  t.fs.add_file("/usr/local/cuda/lib64/libcudnn.so", "");
  t.fs.add_file("/usr/lib/x86_64-linux-gnu/libz.so", "");
  t.proc.on(
      "/kiln doctor --internal-load /usr/local/cuda/lib64/libcudnn.so --internal-load "
      "/usr/lib/x86_64-linux-gnu/libz.so",
      io::ran("KILN-LOAD {\"path\":\"/usr/local/cuda/lib64/libcudnn.so\",\"loaded\":false,\"error\":\"undefined "
              "symbol: cudnnX\",\"soname\":\"\",\"elf_error\":\"\"}\n"
              "KILN-LOAD {\"path\":\"/usr/lib/x86_64-linux-gnu/libz.so\",\"loaded\":true,\"error\":\"\",\"soname\":"
              "\"libz.so.1\",\"elf_error\":\"\"}\n"));
  auto a = audit_cmake_cache(t.seams, "/b/CMakeCache.txt", "/kiln");
  ASSERT_TRUE(a) << a.error();
  auto* cupti = find(a->findings, "cmake-cache.feature-library-notfound");
  ASSERT_NE(cupti, nullptr);
  EXPECT_EQ(cupti->severity, Severity::error);
  EXPECT_NE(cupti->cause.find("USE_CUPTI=ON"), std::string::npos) << cupti->cause;
  EXPECT_NE(cupti->cause.find("CUPTI_LIBRARY=NOTFOUND"), std::string::npos) << cupti->cause;
  EXPECT_NE(cupti->fix.find("LIBKINETO_NOCUPTI=1"), std::string::npos);
  // NCCL is NOTFOUND too but USE_NCCL is OFF: no finding for it.
  int notfound = 0;
  for (const auto& f : a->findings) notfound += f.code == "cmake-cache.feature-library-notfound";
  EXPECT_EQ(notfound, 1);
  auto* gone = find(a->findings, "cmake-cache.library-missing");
  ASSERT_NE(gone, nullptr);
  EXPECT_NE(gone->cause.find("/gone/libold.so.1"), std::string::npos);
  auto* bad = find(a->findings, "cmake-cache.library-load-fails");
  ASSERT_NE(bad, nullptr);
  EXPECT_NE(bad->cause.find("cudnnX"), std::string::npos);
  EXPECT_EQ(a->build_type, "Release");
  EXPECT_EQ(a->cuda_architectures, "80;90");
  EXPECT_EQ(a->cxx_launcher, "/usr/bin/ccache");
  EXPECT_EQ(find(a->findings, "cmake-cache.no-ccache"), nullptr);
  EXPECT_EQ(find(a->findings, "cmake-cache.compiler-missing"), nullptr);
}

TEST(CmakeCache, MissingCompilerEmptyBuildTypeNoLauncher) {
  doctest::FakeSeams t;
  t.fs.add_file(
      "/b/CMakeCache.txt",
      "CMAKE_COMMAND:INTERNAL=/usr/bin/cmake\nCMAKE_GENERATOR:INTERNAL=Unix Makefiles\nCMAKE_BUILD_TYPE:STRING=\n"
      "CMAKE_CXX_COMPILER:FILEPATH=/opt/gcc-9/bin/g++\nCMAKE_CUDA_COMPILER:FILEPATH=/usr/bin/nvcc\n");
  t.fs.add_file("/usr/bin/nvcc", "", true);
  auto a = audit_cmake_cache(t.seams, "/b/CMakeCache.txt", "");
  ASSERT_TRUE(a);
  EXPECT_EQ(find(a->findings, "cmake-cache.compiler-missing")->severity, Severity::error);
  EXPECT_EQ(find(a->findings, "cmake-cache.no-build-type")->severity, Severity::warning);
  EXPECT_NE(find(a->findings, "cmake-cache.no-ccache"), nullptr);
  EXPECT_NE(find(a->findings, "cmake-cache.no-arch-list"), nullptr);
}

TEST(CmakeCache, UnreadableOrForeignFileIsAClearError) {
  doctest::FakeSeams t;
  auto a = audit_cmake_cache(t.seams, "/nope/CMakeCache.txt", "");
  ASSERT_FALSE(a);
  EXPECT_NE(a.error().find("/nope/CMakeCache.txt"), std::string::npos);
  t.fs.add_file("/b/notes.txt", "hello: world\n");
  auto b = audit_cmake_cache(t.seams, "/b/notes.txt", "");
  ASSERT_FALSE(b);
  EXPECT_NE(b.error().find("not a CMakeCache.txt"), std::string::npos);
  auto c = audit_cmake_cache(t.seams, "/b", "");  // a folder without a cache
  ASSERT_FALSE(c);
  EXPECT_NE(c.error().find("/b/CMakeCache.txt: no such file"), std::string::npos) << c.error();
}

TEST(CmakeCache, ABuildFolderStandsForItsCache) {
  doctest::FakeSeams t;
  t.fs.add_file("/build/CMakeCache.txt", "CMAKE_COMMAND:INTERNAL=/usr/bin/cmake\nCMAKE_BUILD_TYPE:STRING=Debug\n");
  auto a = audit_cmake_cache(t.seams, "/build", "");
  ASSERT_TRUE(a) << a.error();
  EXPECT_EQ(a->path, "/build/CMakeCache.txt");
  EXPECT_EQ(a->build_type, "Debug");
}

// CMake checks where its cache was made and from which source before it reads anything else.
TEST(CmakeCache, AMovedBuildFolderAndAGoneSourceAreErrors) {
  doctest::FakeSeams t;
  t.fs.add_file("/src/CMakeLists.txt", "project(p)\n");
  const std::string head = "CMAKE_COMMAND:INTERNAL=/usr/bin/cmake\nCMAKE_BUILD_TYPE:STRING=Release\n";
  t.fs.add_file("/new/b/CMakeCache.txt",
                head + "CMAKE_CACHEFILE_DIR:INTERNAL=/old/b\nCMAKE_HOME_DIRECTORY:INTERNAL=/src\n");
  auto moved = audit_cmake_cache(t.seams, "/new/b", "");
  ASSERT_TRUE(moved) << moved.error();
  EXPECT_EQ(moved->created_in, "/old/b");
  const auto* f = find(moved->findings, "cmake-cache.moved");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->severity, Severity::error);
  EXPECT_NE(f->cause.find("created in /old/b, not in /new/b"), std::string::npos) << f->cause;
  EXPECT_EQ(find(moved->findings, "cmake-cache.source-missing"), nullptr);

  t.fs.add_file("/b/CMakeCache.txt", head + "CMAKE_CACHEFILE_DIR:INTERNAL=/b\nCMAKE_HOME_DIRECTORY:INTERNAL=/gone\n");
  auto gone = audit_cmake_cache(t.seams, "/b/CMakeCache.txt", "");
  ASSERT_TRUE(gone) << gone.error();
  EXPECT_EQ(find(gone->findings, "cmake-cache.moved"), nullptr);
  ASSERT_NE(find(gone->findings, "cmake-cache.source-missing"), nullptr);
  EXPECT_EQ(gone->source_dir, "/gone");
}
