#pragma once
// NVIDIA's own CUDA libraries (cuFFT, cuBLAS, cuDNN, ...), told apart from code the user builds: a
// missing kernel image there is fixed by another release of the library, never by a rebuild with
// TORCH_CUDA_ARCH_LIST. The list is data/vendor_libraries.toml.
#include <optional>
#include <string>

namespace kiln::binary {

// "libcufft" for .../libcufft.so.12 or any file inside site-packages/nvidia/...; nullopt otherwise.
std::optional<std::string> vendor_library(const std::string& path);

// The fix line for a vendor library without an image for compute capability `cc`.
std::string vendor_fix(const std::string& path, const std::string& library, int cc);

}  // namespace kiln::binary
