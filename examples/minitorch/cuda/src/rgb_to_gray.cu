// CUDA kernel for rgb_to_gray: one thread per pixel.
#include "KernelUtils.cuh"
#include "mt/cpu/color_constants.h"
#include "mt/ops/rgb_to_gray_native.h"

namespace mt::native {

namespace {

constexpr float kR = static_cast<float>(color::kLuma[0]);
constexpr float kG = static_cast<float>(color::kLuma[1]);
constexpr float kB = static_cast<float>(color::kLuma[2]);

__global__ void rgb_to_gray_kernel(const float* __restrict__ rgb, float* __restrict__ gray,
                                   std::int64_t pixels) {
  for (std::int64_t p = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; p < pixels;
       p += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    gray[p] = kR * rgb[3 * p] + kG * rgb[3 * p + 1] + kB * rgb[3 * p + 2];
  }
}

}  // namespace

void rgb_to_gray_cuda(const Tensor& rgb, Tensor& gray) {
  check_float(rgb, "rgb", "rgb_to_gray");
  check_float(gray, "gray", "rgb_to_gray");
  check_shape(rgb, "rgb", {-1, -1, 3}, "rgb_to_gray");
  check_shape(gray, "gray", {rgb.size(0), rgb.size(1)}, "rgb_to_gray");
  cuda::detail::set_device(rgb);
  const std::int64_t pixels = gray.numel();
  if (pixels == 0) return;
  rgb_to_gray_kernel<<<cuda::detail::blocks_for(pixels), cuda::detail::kThreadsPerBlock>>>(
      rgb.data<float>(), gray.data<float>(), pixels);
  MT_CUDA_KERNEL_LAUNCH_CHECK();
}

}  // namespace mt::native
