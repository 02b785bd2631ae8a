#pragma once
// Which of PyTorch's CUDA wheel indexes fits the CUDA toolkit kiln found (issue 33): a CPU-only
// torch is replaced by the CUDA build for the nvcc that will compile against it, never a guessed one,
// and never an index PyTorch does not publish (data/torch_indexes.toml).
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/cuda_archs.hpp"

namespace kiln::core {

// nvcc's release ("12.4.131", "12.4", "13.0.88") in the index's spelling: "cu124", "cu130"; "" for
// a version kiln cannot read.
std::string torch_cuda_tag(std::string_view nvcc_version);

// One of PyTorch's CUDA wheel indexes and the torch minor releases it carries.
struct TorchIndex {
  std::string tag;  // "cu124"
  CudaVersion cuda;
  std::string first, last;  // "2.4", "2.6"; last "" while the newest release listed carries it
  std::string url() const { return "https://download.pytorch.org/whl/" + tag; }
};
const std::vector<TorchIndex>& torch_indexes();  // data/torch_indexes.toml, oldest CUDA first

// The index a torch for this nvcc comes from: the newest of the nvcc's major whose CUDA is not newer
// than the nvcc's (cpp_extension refuses another major and accepts an older minor); nullopt when
// none fits or the version cannot be read.
std::optional<TorchIndex> torch_index_for(std::string_view nvcc_version);

// What to run for a CUDA build of torch: "pip install torch --index-url
// https://download.pytorch.org/whl/cu124 (the index for CUDA 12.4, the nvcc kiln found ...)", the
// older index of the same major where PyTorch publishes none for the nvcc's release (saying so), or,
// with no nvcc found or no index that fits it, what to do instead.
std::string cuda_torch_install(std::string_view nvcc_version);

}  // namespace kiln::core
