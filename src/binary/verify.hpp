#pragma once
// The gate before shipping: for every CUDA-bearing file, does some kernel image run on each named
// GPU (core::coverage), do its libraries resolve, does its C++ ABI match the libtorch it loads?
// `kiln verify` prints this; `kiln build` calls verify_files after a build.
#include <string>
#include <vector>

#include "core/compat.hpp"
#include "core/gpu_table.hpp"
#include "io/seams.hpp"

namespace kiln::binary {

struct VerifyOptions {
  std::string root;            // resolve libraries inside an unpacked image
  bool undefined = false;      // undefined symbols for every library (always on for Python extensions)
  bool deps = true;            // check dependencies at all
  // Library folders already loaded when the files are (torch/lib for a torch extension). Python
  // extension modules under a site-packages that holds torch get its torch/lib automatically.
  std::vector<std::string> preloaded;
};

// For a Python extension module (*.cpython-*.so, *.abi3.so) inside site-packages/dist-packages:
// that folder's torch/lib, which `import torch` loads first. Empty otherwise.
std::string torch_lib_for_extension(const std::string& path, const io::Filesystem& fs);

struct Problem {
  std::string file;
  std::string gpu;   // "" when the problem is not about a GPU
  std::string kind;  // "no-kernel", "missing-library", "abi-mismatch", "symbol-version", "undefined-symbol", "unreadable", "no-cuda"
  std::string why;   // one sentence
  std::string fix;   // what to rebuild or install
  std::string line() const;  // "FILE: GPU: WHY; FIX"
};

struct GpuVerdict {
  std::string gpu;  // as named
  core::GpuModel model;
  core::Coverage coverage;
};

struct FileVerdict {
  std::string file;
  core::TargetSet targets;
  std::vector<GpuVerdict> gpus;
  std::string cxx_abi;
};

struct VerifyReport {
  std::vector<FileVerdict> files;  // the CUDA-bearing ones
  std::vector<Problem> problems;
  std::size_t files_checked = 0;
  std::vector<std::string> notes;  // FIFOs, sockets and devices skipped inside folders
  bool ok() const { return problems.empty(); }
};

VerifyReport verify_files(const std::vector<std::string>& paths, const std::vector<std::pair<std::string, core::GpuModel>>& gpus,
                          const VerifyOptions& opt, const io::Seams& s);

// TORCH_CUDA_ARCH_LIST that keeps the file's SASS architectures and adds the GPU's.
std::string rebuild_arch_list(const core::TargetSet& have, int cc);

}  // namespace kiln::binary
