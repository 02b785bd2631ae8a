// CPU reference for rgb_to_gray (BT.601 luma).
#include "mt/cpu/color_constants.h"
#include "mt/ops/rgb_to_gray_native.h"

namespace mt::native {

void rgb_to_gray_cpu(const Tensor& rgb, Tensor& gray) {
  check_float(rgb, "rgb", "rgb_to_gray");
  check_float(gray, "gray", "rgb_to_gray");
  check_shape(rgb, "rgb", {-1, -1, 3}, "rgb_to_gray");
  check_shape(gray, "gray", {rgb.size(0), rgb.size(1)}, "rgb_to_gray");
  const float* in = rgb.data<float>();
  float* out = gray.data<float>();
  for (std::int64_t p = 0; p < gray.numel(); ++p) {
    out[p] = static_cast<float>(color::kLuma[0] * in[3 * p] + color::kLuma[1] * in[3 * p + 1] +
                                color::kLuma[2] * in[3 * p + 2]);
  }
}

}  // namespace mt::native
