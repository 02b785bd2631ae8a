#pragma once
// The Python a build will use and, when installed, torch: its version, the CUDA it was built
// with, its C++ ABI and architecture list. One python subprocess prints all of it as JSON. A
// mismatch between torch's CUDA and the local nvcc is reported with cpp_extension's own verdict:
// a major mismatch is refused (RuntimeError), a minor one only warned about.
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "io/seams.hpp"
#include "probe/cuda_toolkit.hpp"
#include "probe/finding.hpp"
#include "probe/version_text.hpp"

namespace kiln::probe {

struct TorchInfo {
  std::string version;       // "2.11.0+cu130"
  std::string path;          // the torch package folder
  std::string cuda;          // torch.version.cuda, empty for a CPU build
  std::optional<bool> cxx11_abi;
  std::vector<std::string> arch_list;  // "sm_90", "compute_90"...
  std::string import_error;  // why `import torch` failed (the version may still come from version.py)
};

struct PythonInfo {
  std::string path, how;     // how: "--python", "PYTHON", "VIRTUAL_ENV", "CONDA_PREFIX", "python3 on PATH"
  std::string version;       // "3.11.7"
  std::vector<std::string> site_packages;
  std::optional<TorchInfo> torch;
  std::string error;         // why nothing could be read
  Findings findings;
};

struct PythonOptions {
  std::string python;  // --python; empty: PYTHON, VIRTUAL_ENV, CONDA_PREFIX, python3, python
  // Called once with the interpreter's site-packages, as soon as the probe prints them (before it
  // imports torch, which takes seconds), so library detection need not wait for the import.
  std::function<void(const std::vector<std::string>&)> on_site_packages;
};

PythonInfo detect_python(const io::Seams& s, const CudaToolkit& tk, const PythonOptions& o);

// The script run by the interpreter, and the parser of its output, exposed for tests.
const char* python_probe_script();
PythonInfo parse_python_probe(const std::string& json_text);
// The comparison cpp_extension makes between torch.version.cuda and nvcc.
void check_torch_cuda(const std::string& torch_cuda, const Version& nvcc, const std::string& nvcc_path, Findings& out);

}  // namespace kiln::probe
