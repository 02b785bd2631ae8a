#pragma once
// The Python a build will use and, when installed, torch: its version, the CUDA it was built
// with, its C++ ABI and architecture list. One python subprocess (which does not import torch)
// prints the interpreter's facts and where torch is; torch's own files give the rest
// (probe/torch_install). A mismatch between torch's CUDA and the local nvcc is reported with
// cpp_extension's own verdict: a major mismatch is refused (RuntimeError), a minor one only warned.
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "io/seams.hpp"
#include "probe/cuda_toolkit.hpp"
#include "probe/finding.hpp"
#include "probe/torch_install.hpp"
#include "probe/version_text.hpp"

namespace kiln::probe {

struct PythonInfo {
  std::string path, how;  // how: "--python", "PYTHON", "VIRTUAL_ENV", "CONDA_PREFIX", "python3 on PATH"
  std::string version;    // "3.11.7"
  std::vector<std::string> site_packages;
  std::optional<TorchInfo> torch;
  std::string error;  // why nothing could be read
  Findings findings;
};

struct PythonOptions {
  std::string python;  // --python; empty: PYTHON, VIRTUAL_ENV, CONDA_PREFIX, python3, python
  // Called once with the interpreter's site-packages, as soon as the probe prints them (before it
  // imports torch, which takes seconds), so library detection need not wait for the import.
  std::function<void(const std::vector<std::string>&)> on_site_packages;
  // Also `import torch` (seconds) to confirm it imports; the facts come from its files either way.
  bool import_torch = false;
};

PythonInfo detect_python(const io::Seams& s, const CudaToolkit& tk, const PythonOptions& o);

// The scripts run by the interpreter, and the parser of their output, exposed for tests. The
// probe locates torch with importlib.util.find_spec, which does not import it.
const std::string& python_probe_script();
const std::string& torch_import_script();
// The probe's JSON; the torch folder it names is then read with read_torch_install.
PythonInfo parse_python_probe(const std::string& json_text);
// The comparison cpp_extension makes between torch.version.cuda and nvcc.
void check_torch_cuda(const std::string& torch_cuda, const Version& nvcc, const std::string& nvcc_path, Findings& out);

}  // namespace kiln::probe
