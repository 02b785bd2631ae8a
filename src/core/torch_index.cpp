#include "core/torch_index.hpp"

#include <fmt/format.h>

namespace kiln::core {

std::string torch_cuda_tag(std::string_view v) {
  const size_t dot = v.find('.');
  if (dot == 0 || dot == std::string_view::npos || dot + 1 >= v.size()) return {};
  const std::string_view major = v.substr(0, dot);
  std::string_view minor = v.substr(dot + 1);
  minor = minor.substr(0, minor.find('.'));
  auto digits = [](std::string_view s) {
    return !s.empty() && s.size() <= 3 && s.find_first_not_of("0123456789") == std::string_view::npos;
  };
  if (!digits(major) || !digits(minor)) return {};
  return fmt::format("cu{}{}", major, minor);
}

std::string cuda_torch_install(std::string_view nvcc_version) {
  const std::string tag = torch_cuda_tag(nvcc_version);
  if (tag.empty())
    return "kiln found no nvcc, so which CUDA build of torch fits is not known: install the CUDA toolkit, then torch "
           "from https://download.pytorch.org/whl/cuXY for its release (CUDA 12.4: cu124)";
  const std::string_view release = nvcc_version.substr(0, nvcc_version.find('.', nvcc_version.find('.') + 1));
  return fmt::format(
      "pip install torch --index-url https://download.pytorch.org/whl/{} (the index for CUDA {}, the nvcc kiln "
      "found; where PyTorch has none for that release, the nearest older one of the same major)",
      tag, release);
}

}  // namespace kiln::core
