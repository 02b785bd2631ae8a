// CUDA kernel for the Sobel gradient magnitude: each 16x16 block stages its
// tile plus a one-pixel halo in shared memory, clamping coordinates at the
// image border (replicated border, as in the CPU reference).
#include <climits>

#include "KernelUtils.cuh"
#include "mt/ops/sobel_native.h"

namespace mt::native {

namespace {

constexpr int kTile = 16;
constexpr int kHalo = kTile + 2;

__global__ void sobel_kernel(const float* __restrict__ in, float* __restrict__ out, int h, int w) {
  __shared__ float tile[kHalo][kHalo];
  const int x0 = static_cast<int>(blockIdx.x) * kTile;
  const int y0 = static_cast<int>(blockIdx.y) * kTile;
  for (int i = threadIdx.y * kTile + threadIdx.x; i < kHalo * kHalo; i += kTile * kTile) {
    const int ty = i / kHalo;
    const int tx = i % kHalo;
    const int gy = min(max(y0 + ty - 1, 0), h - 1);
    const int gx = min(max(x0 + tx - 1, 0), w - 1);
    tile[ty][tx] = in[static_cast<std::int64_t>(gy) * w + gx];
  }
  __syncthreads();
  const int x = x0 + static_cast<int>(threadIdx.x);
  const int y = y0 + static_cast<int>(threadIdx.y);
  if (x >= w || y >= h) return;
  const int tx = threadIdx.x + 1;
  const int ty = threadIdx.y + 1;
  const float gx = (tile[ty - 1][tx + 1] + 2.0f * tile[ty][tx + 1] + tile[ty + 1][tx + 1]) -
                   (tile[ty - 1][tx - 1] + 2.0f * tile[ty][tx - 1] + tile[ty + 1][tx - 1]);
  const float gy = (tile[ty + 1][tx - 1] + 2.0f * tile[ty + 1][tx] + tile[ty + 1][tx + 1]) -
                   (tile[ty - 1][tx - 1] + 2.0f * tile[ty - 1][tx] + tile[ty - 1][tx + 1]);
  out[static_cast<std::int64_t>(y) * w + x] = sqrtf(gx * gx + gy * gy);
}

}  // namespace

void sobel_cuda(const Tensor& image, Tensor& magnitude) {
  check_float(image, "image", "sobel");
  check_float(magnitude, "magnitude", "sobel");
  check_shape(image, "image", {-1, -1}, "sobel");
  check_same_shape(image, "image", magnitude, "magnitude", "sobel");
  const std::int64_t h = image.size(0);
  const std::int64_t w = image.size(1);
  if (h == 0 || w == 0) return;
  const std::int64_t grid_y = (h + kTile - 1) / kTile;
  MT_CHECK(w < INT_MAX && grid_y <= 65535, "sobel: image ", image.shape_str(),
           " is too large for the CUDA kernel (height at most ", 65535 * kTile, ")");
  cuda::detail::set_device(image);
  const dim3 block(kTile, kTile);
  const dim3 grid(static_cast<unsigned int>((w + kTile - 1) / kTile), static_cast<unsigned int>(grid_y));
  sobel_kernel<<<grid, block>>>(image.data<float>(), magnitude.data<float>(), static_cast<int>(h),
                                static_cast<int>(w));
  MT_CUDA_KERNEL_LAUNCH_CHECK();
}

}  // namespace mt::native
