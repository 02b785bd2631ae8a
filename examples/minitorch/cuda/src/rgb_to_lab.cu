// CUDA kernel for rgb_to_lab: one thread per pixel, float arithmetic.
#include "KernelUtils.cuh"
#include "mt/cpu/color_constants.h"
#include "mt/ops/rgb_to_lab_native.h"

namespace mt::native {

namespace {

// Host constexpr arrays are not usable in device code; copy them into
// constant memory (initialised at compile time, no cudaMemcpyToSymbol).
#define MT_M(r, c) static_cast<float>(color::kRgbToXyz[r][c])
__constant__ float c_rgb_to_xyz[9] = {MT_M(0, 0), MT_M(0, 1), MT_M(0, 2), MT_M(1, 0), MT_M(1, 1),
                                      MT_M(1, 2), MT_M(2, 0), MT_M(2, 1), MT_M(2, 2)};
#undef MT_M
__constant__ float c_inv_white[3] = {static_cast<float>(1.0 / color::kWhite[0]),
                                     static_cast<float>(1.0 / color::kWhite[1]),
                                     static_cast<float>(1.0 / color::kWhite[2])};

constexpr float kDelta = static_cast<float>(color::kDelta);
constexpr float kDelta3 = kDelta * kDelta * kDelta;
constexpr float kLinearSlope = 1.0f / (3.0f * kDelta * kDelta);

__device__ __forceinline__ float srgb_to_linear(float c) {
  return c <= 0.04045f ? c / 12.92f : powf((c + 0.055f) / 1.055f, 2.4f);
}

__device__ __forceinline__ float lab_f(float t) {
  return t > kDelta3 ? cbrtf(t) : t * kLinearSlope + 4.0f / 29.0f;
}

__global__ void rgb_to_lab_kernel(const float* __restrict__ rgb, float* __restrict__ lab,
                                  std::int64_t pixels) {
  for (std::int64_t p = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; p < pixels;
       p += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    const float r = srgb_to_linear(rgb[3 * p]);
    const float g = srgb_to_linear(rgb[3 * p + 1]);
    const float b = srgb_to_linear(rgb[3 * p + 2]);
    float f[3];
#pragma unroll
    for (int row = 0; row < 3; ++row) {
      const float v = c_rgb_to_xyz[3 * row] * r + c_rgb_to_xyz[3 * row + 1] * g +
                      c_rgb_to_xyz[3 * row + 2] * b;
      f[row] = lab_f(v * c_inv_white[row]);
    }
    lab[3 * p] = 116.0f * f[1] - 16.0f;
    lab[3 * p + 1] = 500.0f * (f[0] - f[1]);
    lab[3 * p + 2] = 200.0f * (f[1] - f[2]);
  }
}

}  // namespace

void rgb_to_lab_cuda(const Tensor& rgb, Tensor& lab) {
  check_float(rgb, "rgb", "rgb_to_lab");
  check_float(lab, "lab", "rgb_to_lab");
  check_shape(rgb, "rgb", {-1, -1, 3}, "rgb_to_lab");
  check_same_shape(rgb, "rgb", lab, "lab", "rgb_to_lab");
  cuda::detail::set_device(rgb);
  const std::int64_t pixels = rgb.numel() / 3;
  if (pixels == 0) return;
  rgb_to_lab_kernel<<<cuda::detail::blocks_for(pixels), cuda::detail::kThreadsPerBlock>>>(
      rgb.data<float>(), lab.data<float>(), pixels);
  MT_CUDA_KERNEL_LAUNCH_CHECK();
}

}  // namespace mt::native
