// CPU self-consistency checks: they need no GPU and would catch a broken
// reference before it is used to judge the CUDA kernels.
#include <cmath>
#include <string>

#include "checks.h"
#include "inputs.h"
#include "mt/core/Error.h"
#include "mt/ops/all.h"

namespace selftest {

namespace {

using mt::Tensor;

void check_known_lab(Report& report) {
  // Published CIE L*a*b* values (D65) of the sRGB primaries and neutrals.
  struct Known {
    const char* name;
    float rgb[3];
    double lab[3];
  };
  const Known known[] = {
      {"black", {0, 0, 0}, {0.0, 0.0, 0.0}},
      {"white", {1, 1, 1}, {100.0, 0.0, 0.0}},
      {"red", {1, 0, 0}, {53.2408, 80.0925, 67.2032}},
      {"green", {0, 1, 0}, {87.7347, -86.1827, 83.1793}},
      {"blue", {0, 0, 1}, {32.2970, 79.1875, -107.8602}},
  };
  double worst = 0.0;
  for (const Known& k : known) {
    Tensor rgb = solid(1, 1, k.rgb[0], k.rgb[1], k.rgb[2]);
    Tensor lab = Tensor::empty({1, 1, 3});
    mt::ops::rgb_to_lab(rgb, lab);
    for (int c = 0; c < 3; ++c) worst = std::fmax(worst, std::fabs(lab.data<float>()[c] - k.lab[c]));
  }
  report.compare("cpu", "rgb_to_lab", "5 published colours", worst, 1e-2);
}

void check_lab_round_trip(Report& report) {
  Tensor rgb = uniform({97, 131, 3}, 1);
  Tensor lab = Tensor::empty(rgb.sizes());
  Tensor back = Tensor::empty(rgb.sizes());
  mt::ops::rgb_to_lab(rgb, lab);
  mt::ops::lab_to_rgb(lab, back);
  report.compare("cpu", "lab_to_rgb", "lab_to_rgb(rgb_to_lab(x)) == x", max_abs_diff(rgb, back), 1e-4);
}

void check_gray(Report& report) {
  // The luma weights sum to one, so a grey pixel keeps its value.
  double worst = 0.0;
  for (float v : {0.0f, 0.25f, 0.5f, 1.0f}) {
    Tensor rgb = solid(3, 5, v, v, v);
    Tensor gray = Tensor::empty({3, 5});
    mt::ops::rgb_to_gray(rgb, gray);
    worst = std::fmax(worst, max_abs_diff(gray, Tensor::full({3, 5}, v)));
  }
  report.compare("cpu", "rgb_to_gray", "grey pixels keep their value", worst, 1e-6);
}

void check_sobel(Report& report) {
  Tensor flat = Tensor::full({33, 47}, 0.7f);
  Tensor out = Tensor::empty(flat.sizes());
  mt::ops::sobel(flat, out);
  report.compare("cpu", "sobel", "constant image -> 0", max_abs(out), 1e-6);

  // On a ramp with slopes (sx, sy) both kernels sum to 8 * slope away from the
  // border, so the interior magnitude is 8 * hypot(sx, sy).
  const float sx = 0.01f, sy = 0.02f;
  Tensor r = ramp(40, 50, sx, sy);
  Tensor g = Tensor::empty(r.sizes());
  mt::ops::sobel(r, g);
  const double expected = 8.0 * std::hypot(sx, sy);
  double worst = 0.0;
  for (std::int64_t y = 1; y + 1 < 40; ++y) {
    for (std::int64_t x = 1; x + 1 < 50; ++x) {
      worst = std::fmax(worst, std::fabs(g.data<float>()[y * 50 + x] - expected));
    }
  }
  report.compare("cpu", "sobel", "ramp interior = 8*|slope|", worst, 1e-5);

  // The magnitude does not change when the image is transposed.
  Tensor img = uniform({29, 61}, 2);
  Tensor a = Tensor::empty(img.sizes());
  mt::ops::sobel(img, a);
  Tensor t = transpose(img);
  Tensor b = Tensor::empty(t.sizes());
  mt::ops::sobel(t, b);
  report.compare("cpu", "sobel", "transpose invariance", max_abs_diff(transpose(a), b), 1e-5);
}

void check_add(Report& report) {
  Tensor a = uniform({1000}, 3, -1.0f, 1.0f);
  Tensor out = Tensor::empty(a.sizes());
  mt::ops::add(a, a, -1.0f, out);
  report.compare("cpu", "add", "a + (-1) * a == 0", max_abs(out), 0.0);
  mt::ops::add(a, Tensor::zeros({1000}), 5.0f, out);
  report.compare("cpu", "add", "a + 5 * 0 == a", max_abs_diff(out, a), 0.0);
  bool rejected = false;
  try {
    Tensor wrong = Tensor::empty({999});
    mt::ops::add(a, wrong, 1.0f, out);
  } catch (const mt::Error&) {
    rejected = true;
  }
  report.expect("cpu", "add", "shape mismatch rejected", rejected);
}

void check_sum(Report& report) {
  Tensor out = Tensor::empty({1});
  mt::ops::sum(Tensor::full({100003}, 1.0f), out);
  report.compare("cpu", "sum", "sum(ones(100003)) == 100003", std::fabs(out.data<float>()[0] - 100003.0),
                 0.0);
  Tensor r = ramp(1, 4096, 1.0f, 0.0f);  // 0, 1, ..., 4095
  mt::ops::sum(r, out);
  report.compare("cpu", "sum", "sum(0..4095) == 4095*4096/2",
                 std::fabs(out.data<float>()[0] - 4095.0 * 4096.0 / 2.0), 0.0);
}

}  // namespace

void run_cpu_checks(Report& report) {
  report.guarded("cpu", "rgb_to_lab", [&] { check_known_lab(report); });
  report.guarded("cpu", "lab_to_rgb", [&] { check_lab_round_trip(report); });
  report.guarded("cpu", "rgb_to_gray", [&] { check_gray(report); });
  report.guarded("cpu", "sobel", [&] { check_sobel(report); });
  report.guarded("cpu", "add", [&] { check_add(report); });
  report.guarded("cpu", "sum", [&] { check_sum(report); });
}

}  // namespace selftest
