// Each CUDA kernel against the CPU reference, on the same generated inputs.
// Any CUDA error (a launch that finds no kernel image for this GPU, say)
// becomes a FAIL line carrying cudaGetErrorString's text.
#include <cmath>
#include <string>

#include "checks.h"
#include "inputs.h"
#include "mt/core/Error.h"
#include "mt/ops/all.h"

namespace selftest {

namespace {

using mt::Device;
using mt::Tensor;

// Odd sizes on purpose: they leave partial tiles and partial blocks.
constexpr std::int64_t kH = 389;
constexpr std::int64_t kW = 517;
constexpr std::int64_t kN = (1 << 20) + 37;

std::string image_label() { return std::to_string(kW) + "x" + std::to_string(kH) + " vs cpu"; }

}  // namespace

void run_cuda_checks(Report& report, int index) {
  const Device gpu = Device::cuda(index);
  const std::string image = image_label();

  report.guarded("cuda", "rgb_to_lab", [&] {
    Tensor rgb = uniform({kH, kW, 3}, 11);
    Tensor ref = Tensor::empty(rgb.sizes());
    mt::ops::rgb_to_lab(rgb, ref);
    Tensor out = Tensor::empty(rgb.sizes(), gpu);
    mt::ops::rgb_to_lab(rgb.to(gpu), out);
    // L is in [0, 100], a and b within about +-110. Float evaluation with the
    // host's powf/cbrtf stays below 1e-4 of the double reference; CUDA's are
    // within a few ulp of those, so 2e-3 leaves a wide margin and is still
    // far below a visible colour difference (about 1).
    report.compare("cuda", "rgb_to_lab", image, max_abs_diff(out.to(Device::cpu()), ref), 2e-3);
  });

  report.guarded("cuda", "rgb_to_gray", [&] {
    Tensor rgb = uniform({kH, kW, 3}, 12);
    Tensor ref = Tensor::empty({kH, kW});
    mt::ops::rgb_to_gray(rgb, ref);
    Tensor out = Tensor::empty({kH, kW}, gpu);
    mt::ops::rgb_to_gray(rgb.to(gpu), out);
    report.compare("cuda", "rgb_to_gray", image, max_abs_diff(out.to(Device::cpu()), ref), 1e-5);
  });

  report.guarded("cuda", "sobel", [&] {
    Tensor img = uniform({kH, kW}, 13);
    Tensor ref = Tensor::empty(img.sizes());
    mt::ops::sobel(img, ref);
    Tensor out = Tensor::empty(img.sizes(), gpu);
    mt::ops::sobel(img.to(gpu), out);
    // Magnitudes are at most 4*sqrt(2); float rounding stays near 1e-6.
    report.compare("cuda", "sobel", image, max_abs_diff(out.to(Device::cpu()), ref), 1e-4);
  });

  report.guarded("cuda", "add", [&] {
    Tensor a = uniform({kN}, 14, -1.0f, 1.0f);
    Tensor b = uniform({kN}, 15, -1.0f, 1.0f);
    Tensor ref = Tensor::empty({kN});
    mt::ops::add(a, b, 0.5f, ref);
    Tensor out = Tensor::empty({kN}, gpu);
    mt::ops::add(a.to(gpu), b.to(gpu), 0.5f, out);
    // The GPU may fuse a + alpha*b into one FMA; that differs by an ulp or so.
    report.compare("cuda", "add", std::to_string(kN) + " elements vs cpu",
                   max_abs_diff(out.to(Device::cpu()), ref), 1e-5);
  });

  report.guarded("cuda", "sum", [&] {
    Tensor x = uniform({kN}, 16);
    Tensor ref = Tensor::empty({1});
    mt::ops::sum(x, ref);
    Tensor out = Tensor::empty({1}, gpu);
    mt::ops::sum(x.to(gpu), out);
    const double want = ref.data<float>()[0];
    const double got = out.to(Device::cpu()).data<float>()[0];
    // The 4096 per-block atomicAdds into a total near 5e5 each round to a
    // float ulp (1/32..1/16): expected relative error ~2e-6; 5e-5 leaves room
    // yet a block lost or counted twice (~2.4e-4) fails.
    report.compare("cuda", "sum", std::to_string(kN) + " elements, relative", std::fabs(got - want) / want,
                   5e-5);
  });

  // The dispatcher must refuse what ops.toml does not provide, and mixed devices.
  report.guarded("cuda", "dispatch", [&] {
    Tensor lab = Tensor::empty({2, 2, 3}, gpu);
    Tensor rgb = Tensor::empty({2, 2, 3}, gpu);
    std::string message;
    try {
      mt::ops::lab_to_rgb(lab, rgb);
    } catch (const mt::Error& e) {
      message = e.message();
    }
    report.expect("cuda", "lab_to_rgb", "no cuda kernel -> error",
                  message.find("no cuda kernel") != std::string::npos, message);
    message.clear();
    try {
      Tensor out = Tensor::empty({4}, gpu);
      mt::ops::add(Tensor::zeros({4}), Tensor::zeros({4}).to(gpu), 1.0f, out);
    } catch (const mt::Error& e) {
      message = e.message();
    }
    report.expect("cuda", "add", "mixed devices -> error",
                  message.find("must be on one device") != std::string::npos, message);
  });
}

}  // namespace selftest
