#pragma once
// Finding nvcc and asking it what it can build.
#include <optional>
#include <string>
#include <vector>

#include "core/arch.hpp"
#include "core/cuda_archs.hpp"
#include "io/seams.hpp"

namespace kiln::probe {

struct NvccInfo {
  std::string path;                          // absolute path of nvcc
  std::string how;                           // "CUDA_HOME", "PATH", "/usr/local/cuda"
  std::optional<core::CudaVersion> version;  // from `nvcc --version`
  std::string version_text;                  // "13.0.88"
  std::vector<core::Arch> sass;              // --list-gpu-code
  std::vector<core::Arch> ptx;               // --list-gpu-arch
  // nvcc lists plain architectures only; `a` and `f` variants build when the base does and the
  // release is new enough for the variant (the catalog knows since when).
  bool can_build(const core::Arch& a) const;
};

// Looks in $CUDA_HOME/bin, $CUDA_PATH/bin, PATH, then /usr/local/cuda/bin. nullopt when absent.
std::optional<std::string> find_nvcc(const io::Seams& s, std::string* how = nullptr);
// Runs nvcc --version, --list-gpu-code and --list-gpu-arch. nullopt when nvcc is absent.
std::optional<NvccInfo> probe_nvcc(const io::Seams& s);

// Parsing, exposed for tests.
std::optional<std::string> parse_nvcc_release(const std::string& version_output);  // "13.0.88"
std::vector<core::Arch> parse_arch_listing(const std::string& listing);

}  // namespace kiln::probe
