// CPU reference for the Sobel gradient magnitude. Borders are replicated
// (the pixel outside the image takes the value of the nearest edge pixel).
#include <algorithm>
#include <cmath>

#include "mt/ops/sobel_native.h"

namespace mt::native {

void sobel_cpu(const Tensor& image, Tensor& magnitude) {
  check_float(image, "image", "sobel");
  check_float(magnitude, "magnitude", "sobel");
  check_shape(image, "image", {-1, -1}, "sobel");
  check_same_shape(image, "image", magnitude, "magnitude", "sobel");
  const std::int64_t h = image.size(0);
  const std::int64_t w = image.size(1);
  const float* in = image.data<float>();
  float* out = magnitude.data<float>();
  auto at = [&](std::int64_t y, std::int64_t x) {
    y = std::clamp<std::int64_t>(y, 0, h - 1);
    x = std::clamp<std::int64_t>(x, 0, w - 1);
    return static_cast<double>(in[y * w + x]);
  };
  for (std::int64_t y = 0; y < h; ++y) {
    for (std::int64_t x = 0; x < w; ++x) {
      const double gx = (at(y - 1, x + 1) + 2 * at(y, x + 1) + at(y + 1, x + 1)) -
                        (at(y - 1, x - 1) + 2 * at(y, x - 1) + at(y + 1, x - 1));
      const double gy = (at(y + 1, x - 1) + 2 * at(y + 1, x) + at(y + 1, x + 1)) -
                        (at(y - 1, x - 1) + 2 * at(y - 1, x) + at(y - 1, x + 1));
      out[y * w + x] = static_cast<float>(std::sqrt(gx * gx + gy * gy));
    }
  }
}

}  // namespace mt::native
