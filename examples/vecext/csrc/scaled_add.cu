// x + alpha * y for float, half and bfloat16.
#include <ATen/Dispatch.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAException.h>
#include <torch/extension.h>

template <typename T>
__global__ void scaled_add_kernel(const T* x, const T* y, T* out, float alpha, int64_t n) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x)
    out[i] = static_cast<T>(static_cast<float>(x[i]) + alpha * static_cast<float>(y[i]));
}

torch::Tensor scaled_add_cuda(const torch::Tensor& x, const torch::Tensor& y, double alpha) {
  auto out = torch::empty_like(x);
  const int64_t n = x.numel();
  if (n == 0) return out;
  const int threads = 256;
  const int blocks = static_cast<int>(std::min<int64_t>((n + threads - 1) / threads, 65535));
  AT_DISPATCH_FLOATING_TYPES_AND2(at::ScalarType::Half, at::ScalarType::BFloat16, x.scalar_type(), "scaled_add", [&] {
    scaled_add_kernel<scalar_t><<<blocks, threads, 0, at::cuda::getCurrentCUDAStream()>>>(
        x.data_ptr<scalar_t>(), y.data_ptr<scalar_t>(), out.data_ptr<scalar_t>(), static_cast<float>(alpha), n);
  });
  C10_CUDA_KERNEL_LAUNCH_CHECK();
  return out;
}
