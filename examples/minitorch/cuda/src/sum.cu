// CUDA kernel for sum: each thread accumulates a grid-stride slice, warps
// reduce with shuffles, each block adds its partial sum to the result with
// one atomicAdd (so the float rounding order varies from run to run; the
// self-test compares with a relative tolerance).
#include "KernelUtils.cuh"
#include "mt/ops/sum_native.h"

namespace mt::native {

namespace {

constexpr int kWarp = 32;

__device__ __forceinline__ float warp_sum(float v) {
#pragma unroll
  for (int offset = kWarp / 2; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffffu, v, offset);
  return v;
}

__global__ void sum_kernel(const float* __restrict__ in, std::int64_t n, float* __restrict__ out) {
  __shared__ float partial[cuda::detail::kThreadsPerBlock / kWarp];
  float acc = 0.0f;
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    acc += in[i];
  }
  acc = warp_sum(acc);
  const int lane = threadIdx.x % kWarp;
  const int warp = threadIdx.x / kWarp;
  if (lane == 0) partial[warp] = acc;
  __syncthreads();
  if (warp == 0) {
    acc = lane < static_cast<int>(blockDim.x / kWarp) ? partial[lane] : 0.0f;
    acc = warp_sum(acc);
    if (lane == 0) atomicAdd(out, acc);
  }
}

}  // namespace

void sum_cuda(const Tensor& input, Tensor& out) {
  check_float(input, "input", "sum");
  check_float(out, "out", "sum");
  check_shape(out, "out", {1}, "sum");
  cuda::detail::set_device(input);
  MT_CUDA_CHECK(cudaMemsetAsync(out.data<float>(), 0, sizeof(float)));
  const std::int64_t n = input.numel();
  if (n == 0) return;
  sum_kernel<<<cuda::detail::blocks_for(n), cuda::detail::kThreadsPerBlock>>>(input.data<float>(), n,
                                                                               out.data<float>());
  MT_CUDA_KERNEL_LAUNCH_CHECK();
}

}  // namespace mt::native
