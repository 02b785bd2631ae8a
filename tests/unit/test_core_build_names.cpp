// The shared name lists: each name once, and each list what its users relied on before it was one.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "core/build_names.hpp"

using namespace kiln::core;

TEST(BuildNames, EachVariableOnceAndReadBySomeone) {
  std::set<std::string> seen;
  for (const auto& v : build_variables()) {
    EXPECT_TRUE(seen.insert(v.name).second) << v.name << " is listed twice";
    EXPECT_TRUE(v.configure || v.compile) << v.name << " is read by nothing";
  }
}

TEST(BuildNames, ConfigureAndCompileListsKeepWhatTheirReadersNeed) {
  auto has = [](const std::vector<std::string>& l, const char* n) {
    return std::find(l.begin(), l.end(), n) != l.end();
  };
  const auto configure = configure_variables(), compile = compile_variables();
  for (const char* n : {"PATH", "CC", "CXX", "CUDACXX", "CUDAHOSTCXX", "CUDAARCHS", "CFLAGS", "CXXFLAGS", "CUDAFLAGS",
                        "LDFLAGS", "CUDA_HOME", "CUDA_PATH", "CMAKE_PREFIX_PATH"})
    EXPECT_TRUE(has(configure, n)) << n;
  for (const char* n : {"CC",
                        "CXX",
                        "CFLAGS",
                        "CXXFLAGS",
                        "CPPFLAGS",
                        "LDFLAGS",
                        "LDSHARED",
                        "NVCC_APPEND_FLAGS",
                        "NVCC_PREPEND_FLAGS",
                        "NVCC_CCBIN",
                        "CUDA_HOME",
                        "CUDA_PATH",
                        "CUDACXX",
                        "TORCH_CUDA_ARCH_LIST",
                        "PYTHONPATH",
                        "CPATH",
                        "C_INCLUDE_PATH",
                        "CPLUS_INCLUDE_PATH",
                        "LIBRARY_PATH",
                        "_GLIBCXX_USE_CXX11_ABI"})
    EXPECT_TRUE(has(compile, n)) << n;
  // PATH holds the build's own folders (kiln's wrapper links): keying the wheel cache on it would never hit.
  EXPECT_FALSE(has(compile, "PATH"));
}

TEST(BuildNames, SourceFilesByEndingIncludingUpperCaseC) {
  EXPECT_TRUE(is_source_file("/src/a.cu"));
  EXPECT_TRUE(is_source_file("legacy/Matrix.C"));
  EXPECT_TRUE(is_source_file("x.cxx"));
  EXPECT_FALSE(is_source_file("a.cuh"));
  EXPECT_FALSE(is_source_file("a.o"));
  EXPECT_FALSE(is_source_file(".cu"));
}
