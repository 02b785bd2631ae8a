#pragma once
// An installed torch package read from its files, without importing it (`import torch` takes
// seconds; these reads take milliseconds):
//   version.py              __version__, cuda, git_version, debug (what torch.version says)
//   share/cmake/Torch/TorchConfig.cmake   -D_GLIBCXX_USE_CXX11_ABI=N (what CMake users get), else
//   lib/libc10.so           whether its exported C++ symbols use std::__cxx11 (the ABI itself)
//   lib/libtorch_cuda*.so   the fat-binary entries, read with kiln's own reader: every SASS and
//                           PTX target, `a` variants included (torch.cuda.get_arch_list() lists
//                           only the -gencode flags of the build and omits them)
#include <optional>
#include <string>
#include <vector>

#include "io/fs.hpp"

namespace kiln::probe {

struct TorchInfo {
  std::string version;        // "2.11.0+cu130"
  std::string path;           // the torch package folder
  std::string cuda;           // torch.version.cuda, empty for a CPU build
  std::string git_version;    // torch.version.git_version
  std::optional<bool> debug;  // torch.version.debug
  std::optional<bool> cxx11_abi;
  std::string cxx11_abi_source;        // "TorchConfig.cmake", "libc10.so symbols", "import torch"
  std::vector<std::string> arch_list;  // "sm_90", "sm_90a", "compute_120"... (sorted, distinct)
  std::string arch_source;             // the libraries read, "torch._C._cuda_getArchFlags()"
  std::string import_error;            // why `import torch` failed (only asked with --deep)
  std::vector<std::string> notes;      // files that could not be read, and why
};

// The fields of torch/version.py that kiln uses. Lines look like `cuda: Optional[str] = '13.0'`;
// unknown lines are ignored. False when no __version__ was found.
bool parse_torch_version_py(const std::string& text, TorchInfo& out);

// `-D_GLIBCXX_USE_CXX11_ABI=1` in TorchConfig.cmake; nullopt when absent.
std::optional<bool> abi_from_torch_config(const std::string& text);

// Reads the package at `torch_dir` (the folder holding version.py and lib/). Text files go through
// `fs`; the libraries are mapped directly by the binary readers (they are hundreds of MB).
TorchInfo read_torch_install(const io::Filesystem& fs, const std::string& torch_dir);

}  // namespace kiln::probe
