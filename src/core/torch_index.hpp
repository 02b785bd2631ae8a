#pragma once
// Which of PyTorch's CUDA wheel indexes fits the CUDA toolkit kiln found (issue 33): a CPU-only
// torch is replaced by the CUDA build for the nvcc that will compile against it, never a guessed one.
#include <string>
#include <string_view>

namespace kiln::core {

// nvcc's release ("12.4.131", "12.4", "13.0.88") in the index's spelling: "cu124", "cu130"; "" for
// a version kiln cannot read.
std::string torch_cuda_tag(std::string_view nvcc_version);

// What to run for a CUDA build of torch: "pip install torch --index-url
// https://download.pytorch.org/whl/cu124 (the index for CUDA 12.4, the nvcc kiln found)", or, with
// no nvcc found, that the index follows the CUDA toolkit to be installed, named as such.
std::string cuda_torch_install(std::string_view nvcc_version);

}  // namespace kiln::core
