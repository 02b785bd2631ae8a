#pragma once
// What mt_cuda tells its users about the CUDA runtime and devices. Nothing in
// this header needs cuda_runtime.h, so programs using minitorch compile with a
// plain C++ compiler.
#include <cstddef>
#include <string>

namespace mt::cuda {

struct DeviceCount {
  int count = 0;
  std::string error;  // cudaGetDeviceCount's error string; empty when it succeeded
};
// Never throws: "no driver" and "no device" are answers, not failures.
DeviceCount device_count();

struct DeviceInfo {
  int index = 0;
  std::string name;
  int major = 0;  // compute capability major.minor
  int minor = 0;
  int multiprocessors = 0;
  std::size_t total_memory = 0;  // bytes
};
DeviceInfo device_info(int index);

struct Versions {
  int runtime = 0;  // e.g. 13000 for CUDA 13.0
  int driver = 0;   // highest CUDA version the installed driver supports
};
Versions versions();

// The CMAKE_CUDA_ARCHITECTURES value mt_cuda was compiled with.
const char* compiled_architectures();

// Which image of mt_cuda's code the runtime picked for the current device:
// binary_version is the SASS arch (90 for sm_90), ptx_version the PTX arch it
// came from, if JIT-compiled. Throws mt::Error (with the CUDA error string,
// e.g. "no kernel image is available for execution on the device") if the
// library holds no code this device can run.
struct KernelImage {
  int binary_version = 0;
  int ptx_version = 0;
};
KernelImage kernel_image();

// Launches a one-thread kernel and checks what it wrote: the cheapest proof
// that mt_cuda's kernels run on this device. Throws mt::Error on failure.
void probe_launch();

void synchronize();

}  // namespace mt::cuda
