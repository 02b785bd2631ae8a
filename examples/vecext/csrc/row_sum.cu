// Sum over the last dimension with a block-wide reduction, accumulated in float.
#include <ATen/Dispatch.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAException.h>
#include <torch/extension.h>

template <typename T, int kThreads>
__global__ void row_sum_kernel(const T* x, float* out, int64_t cols) {
  __shared__ float partial[kThreads];
  const T* row = x + blockIdx.x * cols;
  float acc = 0.f;
  for (int64_t c = threadIdx.x; c < cols; c += kThreads) acc += static_cast<float>(row[c]);
  partial[threadIdx.x] = acc;
  __syncthreads();
  for (int s = kThreads / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) partial[threadIdx.x] += partial[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0) out[blockIdx.x] = partial[0];
}

torch::Tensor row_sum_cuda(const torch::Tensor& x) {
  auto out = torch::empty({x.size(0)}, x.options().dtype(torch::kFloat));
  if (x.size(0) == 0) return out;
  constexpr int kThreads = 256;
  AT_DISPATCH_FLOATING_TYPES_AND2(at::ScalarType::Half, at::ScalarType::BFloat16, x.scalar_type(), "row_sum", [&] {
    row_sum_kernel<scalar_t, kThreads><<<x.size(0), kThreads, 0, at::cuda::getCurrentCUDAStream()>>>(
        x.data_ptr<scalar_t>(), out.data_ptr<float>(), x.size(1));
  });
  C10_CUDA_KERNEL_LAUNCH_CHECK();
  return out;
}
