// CPU reference implementations of rgb_to_lab and lab_to_rgb. They compute in
// double precision on purpose: they are the yardstick the float CUDA kernels
// are measured against.
#include <cmath>

#include "mt/cpu/color_constants.h"
#include "mt/ops/lab_to_rgb_native.h"
#include "mt/ops/rgb_to_lab_native.h"

namespace mt::native {

namespace {

double srgb_to_linear(double c) {
  return c <= 0.04045 ? c / 12.92 : std::pow((c + 0.055) / 1.055, 2.4);
}
double linear_to_srgb(double c) {
  return c <= 0.0031308 ? 12.92 * c : 1.055 * std::pow(c, 1.0 / 2.4) - 0.055;
}
double lab_f(double t) {
  constexpr double d = color::kDelta;
  return t > d * d * d ? std::cbrt(t) : t / (3.0 * d * d) + 4.0 / 29.0;
}
double lab_f_inv(double t) {
  constexpr double d = color::kDelta;
  return t > d ? t * t * t : 3.0 * d * d * (t - 4.0 / 29.0);
}

void check_image3(const Tensor& t, const char* name, const char* op) {
  check_float(t, name, op);
  check_shape(t, name, {-1, -1, 3}, op);
}

}  // namespace

void rgb_to_lab_cpu(const Tensor& rgb, Tensor& lab) {
  check_image3(rgb, "rgb", "rgb_to_lab");
  check_same_shape(rgb, "rgb", lab, "lab", "rgb_to_lab");
  check_float(lab, "lab", "rgb_to_lab");
  const float* in = rgb.data<float>();
  float* out = lab.data<float>();
  const std::int64_t pixels = rgb.numel() / 3;
  for (std::int64_t p = 0; p < pixels; ++p) {
    const double lin[3] = {srgb_to_linear(in[3 * p]), srgb_to_linear(in[3 * p + 1]),
                           srgb_to_linear(in[3 * p + 2])};
    double f[3];
    for (int r = 0; r < 3; ++r) {
      const double v = color::kRgbToXyz[r][0] * lin[0] + color::kRgbToXyz[r][1] * lin[1] +
                       color::kRgbToXyz[r][2] * lin[2];
      f[r] = lab_f(v / color::kWhite[r]);
    }
    out[3 * p] = static_cast<float>(116.0 * f[1] - 16.0);
    out[3 * p + 1] = static_cast<float>(500.0 * (f[0] - f[1]));
    out[3 * p + 2] = static_cast<float>(200.0 * (f[1] - f[2]));
  }
}

void lab_to_rgb_cpu(const Tensor& lab, Tensor& rgb) {
  check_image3(lab, "lab", "lab_to_rgb");
  check_same_shape(lab, "lab", rgb, "rgb", "lab_to_rgb");
  check_float(rgb, "rgb", "lab_to_rgb");
  const float* in = lab.data<float>();
  float* out = rgb.data<float>();
  const std::int64_t pixels = lab.numel() / 3;
  for (std::int64_t p = 0; p < pixels; ++p) {
    const double fy = (in[3 * p] + 16.0) / 116.0;
    const double fx = fy + in[3 * p + 1] / 500.0;
    const double fz = fy - in[3 * p + 2] / 200.0;
    const double xyz[3] = {color::kWhite[0] * lab_f_inv(fx), color::kWhite[1] * lab_f_inv(fy),
                           color::kWhite[2] * lab_f_inv(fz)};
    for (int r = 0; r < 3; ++r) {
      const double lin = color::kXyzToRgb[r][0] * xyz[0] + color::kXyzToRgb[r][1] * xyz[1] +
                         color::kXyzToRgb[r][2] * xyz[2];
      out[3 * p + r] = static_cast<float>(linear_to_srgb(lin));
    }
  }
}

}  // namespace mt::native
