#include "core/build_names.hpp"

#include "core/text.hpp"

namespace kiln::core {

const std::vector<BuildVariable>& build_variables() {
  // CMake: cmake-env-variables(7) (CC, CXX, CUDACXX, CUDAHOSTCXX, CUDAARCHS, *FLAGS, CMAKE_PREFIX_PATH),
  // PATH for find_program, CUDA_HOME/CUDA_PATH for FindCUDAToolkit. Extensions: distutils/setuptools
  // (CC, CXX, CFLAGS, CPPFLAGS, LDFLAGS, LDSHARED), torch.utils.cpp_extension (CUDA_HOME, CUDA_PATH,
  // TORCH_CUDA_ARCH_LIST, _GLIBCXX_USE_CXX11_ABI), nvcc (NVCC_APPEND_FLAGS, NVCC_PREPEND_FLAGS,
  // NVCC_CCBIN), gcc (CPATH, C_INCLUDE_PATH, CPLUS_INCLUDE_PATH, LIBRARY_PATH), Python (PYTHONPATH).
  static const std::vector<BuildVariable> table = {
      {"PATH", true, false},
      {"CC", true, true},
      {"CXX", true, true},
      {"CUDACXX", true, true},
      {"CUDAHOSTCXX", true, false},
      {"CUDAARCHS", true, false},
      {"CFLAGS", true, true},
      {"CXXFLAGS", true, true},
      {"CUDAFLAGS", true, false},
      {"CPPFLAGS", false, true},
      {"LDFLAGS", true, true},
      {"LDSHARED", false, true},
      {"CUDA_HOME", true, true},
      {"CUDA_PATH", true, true},
      {"CMAKE_PREFIX_PATH", true, false},
      {"NVCC_APPEND_FLAGS", false, true},
      {"NVCC_PREPEND_FLAGS", false, true},
      {"NVCC_CCBIN", false, true},
      {"TORCH_CUDA_ARCH_LIST", false, true},
      {"PYTHONPATH", false, true},
      {"CPATH", false, true},
      {"C_INCLUDE_PATH", false, true},
      {"CPLUS_INCLUDE_PATH", false, true},
      {"LIBRARY_PATH", false, true},
      {"_GLIBCXX_USE_CXX11_ABI", false, true},
  };
  return table;
}

std::vector<std::string> configure_variables() {
  std::vector<std::string> out;
  for (const auto& v : build_variables())
    if (v.configure) out.emplace_back(v.name);
  return out;
}

std::vector<std::string> compile_variables() {
  std::vector<std::string> out;
  for (const auto& v : build_variables())
    if (v.compile) out.emplace_back(v.name);
  return out;
}

const std::vector<std::string>& source_extensions() {
  static const std::vector<std::string> exts = {".cu", ".cpp", ".cc", ".cxx", ".c", ".C"};
  return exts;
}

bool is_source_file(std::string_view path) {
  for (const auto& e : source_extensions())
    if (ends_with(path, e) && path.size() > e.size()) return true;
  return false;
}

}  // namespace kiln::core
