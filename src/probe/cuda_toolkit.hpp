#pragma once
// The CUDA toolkit a build will use: every root kiln can see (CUDA_HOME, CUDA_PATH, nvcc on PATH,
// /usr/local/cuda*) and the toolkit's version read three independent ways (nvcc --version,
// version.json, cuda.h CUDA_VERSION). A disagreement between them is what CMake reports as
// "FindCUDA says version X but headers say version Y", so it is a finding, not a guess.
#include <optional>
#include <string>
#include <vector>

#include "io/seams.hpp"
#include "probe/finding.hpp"
#include "probe/version_text.hpp"

namespace kiln::probe {

struct ToolkitRoot {
  std::string path;
  std::string how;  // "CUDA_HOME", "CUDA_PATH", "nvcc on PATH", "/usr/local/cuda*"
  bool has_nvcc = false;
  std::optional<Version> version;  // from version.json or cuda.h, without running anything
};

struct VersionReading {
  std::string source;  // "nvcc --version", "version.json", "cuda.h CUDA_VERSION"
  std::string where;   // the file read or the program run
  std::string raw;     // as written there ("13.0.88", "13000")
  std::optional<Version> version;
};

struct CudaToolkit {
  bool found = false;
  std::string root, how;
  std::string nvcc;                      // empty when the toolkit has no nvcc
  std::vector<ToolkitRoot> candidates;   // every root seen, in search order
  std::vector<VersionReading> versions;  // the readings of the chosen root
  std::optional<Version> version;        // the most precise reading (nvcc's when present)
  std::string include_dir;               // where cuda.h is
  std::vector<std::string> lib_dirs;     // existing library folders of the toolkit
  Findings findings;
};

// `sysroot` prefixes the fixed system locations (/usr/local/cuda*), so tests can build a tree.
CudaToolkit detect_cuda_toolkit(const io::Seams& s, const std::string& sysroot = "");

// Readers, exposed for tests.
std::optional<std::string> version_json_cuda(const std::string& json_text);  // "12.4.1"
std::optional<Version> cuda_h_version(const std::string& header_text);       // 13000 -> 13.0

}  // namespace kiln::probe
