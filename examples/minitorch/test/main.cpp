// mt_selftest: checks every minitorch operator. CPU reference checks always
// run; when a CUDA device is present each CUDA kernel is compared with the
// CPU reference on the same inputs.
//
// Exit status: 0 all checks passed (GPU checks skipped when there is no
// device, unless --require-gpu), 1 a check failed or a CUDA call failed,
// 2 bad command line.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <string>

#include "checks.h"
#include "mt/cuda/CUDAContext.h"
#include "mt/ops/registration.h"
#include "report.h"

namespace {

void usage(std::FILE* to) {
  std::fprintf(to,
               "usage: mt_selftest [--device N] [--require-gpu]\n"
               "  --device N      CUDA device to test (default 0)\n"
               "  --require-gpu   fail (exit 1) when no CUDA device is found\n");
}

// Prints the device and checks that mt_cuda has code it can run, before any
// operator is tried. Returns false (after a FAIL line) if it has not.
bool describe_device(selftest::Report& report, int device) {
  const mt::cuda::DeviceInfo info = mt::cuda::device_info(device);
  const mt::cuda::Versions v = mt::cuda::versions();
  std::printf("CUDA device %d: %s, compute capability %d.%d, %d SMs, %.1f GiB\n", info.index,
              info.name.c_str(), info.major, info.minor, info.multiprocessors,
              static_cast<double>(info.total_memory) / (1024.0 * 1024.0 * 1024.0));
  std::printf("CUDA runtime %d.%d, driver supports %d.%d; mt_cuda built for CMAKE_CUDA_ARCHITECTURES=%s\n",
              v.runtime / 1000, v.runtime % 1000 / 10, v.driver / 1000, v.driver % 1000 / 10,
              mt::cuda::compiled_architectures());
  const int failures_before = report.failures();
  report.guarded("cuda", "kernel-image", [&] {
    const mt::cuda::KernelImage image = mt::cuda::kernel_image();
    report.expect("cuda", "kernel-image", "code for this GPU is present", true,
                  "binaryVersion " + std::to_string(image.binary_version) + ", ptxVersion " +
                      std::to_string(image.ptx_version));
  });
  report.guarded("cuda", "probe", [&] {
    mt::cuda::probe_launch();
    report.expect("cuda", "probe", "one-thread kernel launch", true);
  });
  return report.failures() == failures_before;
}

}  // namespace

int main(int argc, char** argv) {
  int device = 0;
  bool require_gpu = false;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--require-gpu") == 0) {
      require_gpu = true;
    } else if (std::strcmp(argv[i], "--device") == 0 && i + 1 < argc) {
      char* end = nullptr;
      const long n = std::strtol(argv[++i], &end, 10);
      if (*end != '\0' || n < 0 || n > 1024) {
        std::fprintf(stderr, "mt_selftest: --device expects a device number, got '%s'\n", argv[i]);
        return 2;
      }
      device = static_cast<int>(n);
    } else if (std::strcmp(argv[i], "--help") == 0 || std::strcmp(argv[i], "-h") == 0) {
      usage(stdout);
      return 0;
    } else {
      std::fprintf(stderr, "mt_selftest: unknown argument '%s'\n", argv[i]);
      usage(stderr);
      return 2;
    }
  }

  try {
    // Explicit calls keep both backend libraries linked and loaded; they
    // also registered themselves when they were loaded.
    const int cpu_kernels = mt::ops::register_cpu_kernels();
    const int cuda_kernels = mt::ops::register_cuda_kernels();
    std::printf("minitorch selftest: %d cpu kernels, %d cuda kernels registered\n", cpu_kernels,
                cuda_kernels);

    selftest::Report report;
    selftest::run_dispatch_checks(report);
    selftest::run_cpu_checks(report);

    const mt::cuda::DeviceCount count = mt::cuda::device_count();
    bool gpu_ran = false;
    if (count.count == 0) {
      std::printf("no CUDA device found: GPU checks skipped (CPU reference checks ran)\n");
      std::printf("  (cudaGetDeviceCount: %s)\n",
                  count.error.empty() ? "0 devices" : count.error.c_str());
    } else if (device >= count.count) {
      std::printf("CUDA device %d requested but only %d present\n", device, count.count);
      report.expect("cuda", "device", "requested device exists", false);
    } else {
      gpu_ran = true;
      if (describe_device(report, device)) {
        selftest::run_cuda_checks(report, device);
      } else {
        std::printf("mt_cuda cannot run on this GPU: operator checks skipped\n");
      }
    }

    std::printf("selftest: %d checks, %d failed%s\n", report.checks(), report.failures(),
                gpu_ran ? "" : " (CPU only)");
    if (report.failures() > 0) return 1;
    if (!gpu_ran && require_gpu) {
      std::printf("selftest: --require-gpu given and no usable CUDA device: failing\n");
      return 1;
    }
    return 0;
  } catch (const std::exception& e) {
    std::printf("selftest: FAIL: %s\n", e.what());
    return 1;
  }
}
