// CUDA kernel for add: out = a + alpha * b, grid-stride loop.
#include "KernelUtils.cuh"
#include "mt/ops/add_native.h"

namespace mt::native {

namespace {

__global__ void add_kernel(const float* __restrict__ a, const float* __restrict__ b, float alpha,
                           float* __restrict__ out, std::int64_t n) {
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    out[i] = a[i] + alpha * b[i];
  }
}

}  // namespace

void add_cuda(const Tensor& a, const Tensor& b, float alpha, Tensor& out) {
  check_float(a, "a", "add");
  check_float(b, "b", "add");
  check_float(out, "out", "add");
  check_same_shape(a, "a", b, "b", "add");
  check_same_shape(a, "a", out, "out", "add");
  cuda::detail::set_device(a);
  const std::int64_t n = a.numel();
  if (n == 0) return;
  add_kernel<<<cuda::detail::blocks_for(n), cuda::detail::kThreadsPerBlock>>>(
      a.data<float>(), b.data<float>(), alpha, out.data<float>(), n);
  MT_CUDA_KERNEL_LAUNCH_CHECK();
}

}  // namespace mt::native
