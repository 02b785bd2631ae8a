#include "core/torch_index.hpp"

#include <fmt/format.h>

#include "core/version.hpp"

namespace kiln::core {

std::string torch_cuda_tag(std::string_view v) {
  // The release exactly: "12.4" of "12.4.131" ("12.4a", "12" and "12." are none).
  const auto release = parse_version(v.substr(0, v.find('.', v.find('.') + 1)));
  if (!release || release->parts.size() != 2 || release->major() > 999 || release->minor() > 999) return {};
  return fmt::format("cu{}{}", release->major(), release->minor());
}

std::string cuda_torch_install(std::string_view nvcc_version) {
  const std::string tag = torch_cuda_tag(nvcc_version);
  if (tag.empty())
    return "kiln found no nvcc, so which CUDA build of torch fits is not known: install the CUDA toolkit, then torch "
           "from https://download.pytorch.org/whl/cuXY for its release (CUDA 12.4: cu124)";
  return fmt::format(
      "pip install torch --index-url https://download.pytorch.org/whl/{} (the index for CUDA {}, the nvcc kiln "
      "found; where PyTorch has none for that release, the nearest older one of the same major)",
      tag, major_minor(nvcc_version));
}

}  // namespace kiln::core
