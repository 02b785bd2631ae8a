#include "inputs.h"

#include <algorithm>
#include <cmath>

namespace selftest {

namespace {
std::uint64_t splitmix64(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}
}  // namespace

mt::Tensor uniform(std::vector<std::int64_t> sizes, std::uint64_t seed, float lo, float hi) {
  mt::Tensor t = mt::Tensor::empty(std::move(sizes));
  float* p = t.data<float>();
  std::uint64_t state = seed;
  for (std::int64_t i = 0; i < t.numel(); ++i) {
    const double unit = static_cast<double>(splitmix64(state) >> 11) * 0x1.0p-53;  // [0, 1)
    p[i] = static_cast<float>(lo + (hi - lo) * unit);
  }
  return t;
}

mt::Tensor ramp(std::int64_t h, std::int64_t w, float sx, float sy) {
  mt::Tensor t = mt::Tensor::empty({h, w});
  float* p = t.data<float>();
  for (std::int64_t y = 0; y < h; ++y) {
    for (std::int64_t x = 0; x < w; ++x) p[y * w + x] = sx * static_cast<float>(x) + sy * static_cast<float>(y);
  }
  return t;
}

mt::Tensor solid(std::int64_t h, std::int64_t w, float r, float g, float b) {
  mt::Tensor t = mt::Tensor::empty({h, w, 3});
  float* p = t.data<float>();
  for (std::int64_t i = 0; i < h * w; ++i) {
    p[3 * i] = r;
    p[3 * i + 1] = g;
    p[3 * i + 2] = b;
  }
  return t;
}

mt::Tensor transpose(const mt::Tensor& image) {
  const std::int64_t h = image.size(0);
  const std::int64_t w = image.size(1);
  mt::Tensor t = mt::Tensor::empty({w, h});
  const float* in = image.data<float>();
  float* out = t.data<float>();
  for (std::int64_t y = 0; y < h; ++y) {
    for (std::int64_t x = 0; x < w; ++x) out[x * h + y] = in[y * w + x];
  }
  return t;
}

double max_abs_diff(const mt::Tensor& a, const mt::Tensor& b) {
  mt::check_same_shape(a, "a", b, "b", "max_abs_diff");
  const float* pa = a.data<float>();
  const float* pb = b.data<float>();
  double worst = 0.0;
  for (std::int64_t i = 0; i < a.numel(); ++i) {
    const double d = std::fabs(static_cast<double>(pa[i]) - pb[i]);
    if (std::isnan(d)) return d;  // a NaN anywhere must fail the comparison
    worst = std::max(worst, d);
  }
  return worst;
}

double max_abs(const mt::Tensor& t) {
  const float* p = t.data<float>();
  double worst = 0.0;
  for (std::int64_t i = 0; i < t.numel(); ++i) {
    const double v = std::fabs(static_cast<double>(p[i]));
    if (std::isnan(v)) return v;
    worst = std::max(worst, v);
  }
  return worst;
}

}  // namespace selftest
