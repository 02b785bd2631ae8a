#pragma once
// libtorch projects: CMake projects that find_package(Torch). Their CUDA architectures come from
// Torch's CMake package, not from CMAKE_CUDA_ARCHITECTURES: Caffe2/public/cuda.cmake calls
// torch_cuda_get_nvcc_gencode_flag (TORCH_CUDA_ARCH_LIST as a CMake variable, else from the
// environment, else "Auto": the local GPUs), appends the -gencode flags to the CUDA flags and sets
// CMAKE_CUDA_ARCHITECTURES OFF. kiln therefore passes the planned targets as TORCH_CUDA_ARCH_LIST
// and points CMake at the package (Torch_DIR), found without importing torch.
#include <optional>
#include <string>
#include <vector>

#include <tl/expected.hpp>

#include "binary/extension_torch.hpp"
#include "io/seams.hpp"

namespace kiln::read {

// find_package(Torch ...) in the project's top CMakeLists.txt or a file it include()s from the
// project. Commented-out calls do not count (the CMake reader skips comments).
bool uses_torch_package(const io::Filesystem& fs, const std::string& project_dir);

struct TorchPackage {
  std::string dir;  // the folder holding TorchConfig.cmake
  std::string how;  // "-D Torch_DIR", "Torch_DIR", "LIBTORCH", "CMAKE_PREFIX_PATH", "python3 (find_spec)"
};

// Where the package is, in the order a user would expect to override it: a -D Torch_DIR given to
// kiln, $Torch_DIR, $LIBTORCH (an unpacked libtorch zip), $CMAKE_PREFIX_PATH entries, then the torch
// that `python` would import (importlib.util.find_spec, which does not import it).
// The script and the question are binary/extension_torch's (verify asks it too): the torch
// package folder `python_exe` would import, found without importing it; "" when none.
using binary::find_torch_package;
using binary::torch_find_spec_script;

tl::expected<TorchPackage, std::string> locate_torch_package(const io::Seams& s, const std::string& python,
                                                             const std::vector<std::string>& cmake_defines);

}  // namespace kiln::read
