#pragma once
// Lists of names more than one part of kiln needs, each in one table (build_names.cpp) with a test
// (tests/unit/test_core_build_names.cpp).
#include <string>
#include <string_view>
#include <vector>

namespace kiln::core {

// An environment variable that changes what a build makes, and who reads it: CMake while it
// configures (the configure stamp compares these), or the compilers and Python build backends of a
// torch extension (the wheel cache keys on these).
struct BuildVariable {
  const char* name;
  bool configure;  // CMake reads it when configuring
  bool compile;    // a torch extension's build (setuptools, cpp_extension, nvcc, the compilers) reads it
};
const std::vector<BuildVariable>& build_variables();
std::vector<std::string> configure_variables();
std::vector<std::string> compile_variables();

// What compilers take as a source file, by its ending (`.C` is C++ to gcc and nvcc alike).
const std::vector<std::string>& source_extensions();
bool is_source_file(std::string_view path);

}  // namespace kiln::core
