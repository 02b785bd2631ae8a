#pragma once
// Launch-configuration helpers shared by mt_cuda's kernels.
#include <algorithm>
#include <cstdint>

#include "CUDACheck.h"
#include "mt/core/Tensor.h"

namespace mt::cuda::detail {

constexpr int kThreadsPerBlock = 256;
// Grid-stride loops cover any size, so the grid can stay bounded.
constexpr std::int64_t kMaxBlocks = 4096;

inline unsigned int blocks_for(std::int64_t n) {
  const std::int64_t blocks = (n + kThreadsPerBlock - 1) / kThreadsPerBlock;
  return static_cast<unsigned int>(std::clamp<std::int64_t>(blocks, 1, kMaxBlocks));
}

// Makes the tensor's device current (minitorch has no device guard object).
inline void set_device(const Tensor& t) {
  MT_CHECK(t.device().is_cuda(), "expected a CUDA tensor, got one on ", t.device());
  MT_CUDA_CHECK(cudaSetDevice(t.device().index));
}

}  // namespace mt::cuda::detail
