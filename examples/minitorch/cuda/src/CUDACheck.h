#pragma once
// Error checking for every CUDA runtime call in mt_cuda (the analogue of
// C10_CUDA_CHECK and C10_CUDA_KERNEL_LAUNCH_CHECK). Private to mt_cuda.
#include <cuda_runtime.h>

#include "mt/core/Error.h"

namespace mt::cuda::detail {
// Throws mt::Error: "CUDA error: <cudaGetErrorString> (<cudaGetErrorName>) in <expr>"
// plus a hint for the errors a build-configuration mistake causes.
[[noreturn]] void throw_cuda_error(cudaError_t err, const char* expr, const char* file, int line);
}  // namespace mt::cuda::detail

#define MT_CUDA_CHECK(expr)                                                      \
  do {                                                                           \
    const cudaError_t mt_cuda_err_ = (expr);                                     \
    if (mt_cuda_err_ != cudaSuccess) {                                           \
      ::mt::cuda::detail::throw_cuda_error(mt_cuda_err_, #expr, __FILE__, __LINE__); \
    }                                                                            \
  } while (0)

// After every <<<...>>> launch: launch errors (bad configuration, no kernel
// image for this GPU) surface here, not at the next synchronising call.
#define MT_CUDA_KERNEL_LAUNCH_CHECK() MT_CUDA_CHECK(cudaGetLastError())
