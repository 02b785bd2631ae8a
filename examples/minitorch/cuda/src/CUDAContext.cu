// Device and runtime queries, CUDA error formatting, and the probe kernel.
#include <string>

#include "CUDACheck.h"
#include "mt/cuda/CUDAContext.h"

#include "mt_cuda_config.h"  // MT_CUDA_ARCHITECTURES, written by CMake

namespace mt::cuda {

namespace detail {

void throw_cuda_error(cudaError_t err, const char* expr, const char* file, int line) {
  std::string message = ::mt::detail::str("CUDA error: ", cudaGetErrorString(err), " (",
                                          cudaGetErrorName(err), ") in ", expr);
  // The errors a wrong architecture list produces get a hint naming the fix.
  if (err == cudaErrorNoKernelImageForDevice || err == cudaErrorInvalidDeviceFunction) {
    int device = 0;
    cudaDeviceProp prop{};
    if (cudaGetDevice(&device) == cudaSuccess &&
        cudaGetDeviceProperties(&prop, device) == cudaSuccess) {
      message += ::mt::detail::str("; this GPU (", prop.name, ", compute capability ", prop.major,
                                   ".", prop.minor, ") has no matching code in mt_cuda, built for"
                                   " CMAKE_CUDA_ARCHITECTURES=", MT_CUDA_ARCHITECTURES,
                                   ": rebuild including ", prop.major * 10 + prop.minor);
    }
  } else if (err == cudaErrorUnsupportedPtxVersion) {
    message += "; the PTX in mt_cuda is newer than the installed driver can JIT: update the"
               " driver or build SASS for this GPU";
  }
  ::mt::detail::throw_error(message, file, line);
}

}  // namespace detail

namespace {
__global__ void probe_kernel(int* out) { *out = 0x6d74; }  // "mt"
}  // namespace

DeviceCount device_count() {
  DeviceCount result;
  const cudaError_t err = cudaGetDeviceCount(&result.count);
  if (err != cudaSuccess) {
    result.count = 0;
    result.error = ::mt::detail::str(cudaGetErrorString(err), " (", cudaGetErrorName(err), ")");
    cudaGetLastError();  // clear it so later calls do not report it again
  }
  return result;
}

DeviceInfo device_info(int index) {
  cudaDeviceProp prop{};
  MT_CUDA_CHECK(cudaGetDeviceProperties(&prop, index));
  DeviceInfo info;
  info.index = index;
  info.name = prop.name;
  info.major = prop.major;
  info.minor = prop.minor;
  info.multiprocessors = prop.multiProcessorCount;
  info.total_memory = prop.totalGlobalMem;
  return info;
}

Versions versions() {
  Versions v;
  MT_CUDA_CHECK(cudaRuntimeGetVersion(&v.runtime));
  MT_CUDA_CHECK(cudaDriverGetVersion(&v.driver));
  return v;
}

const char* compiled_architectures() { return MT_CUDA_ARCHITECTURES; }

KernelImage kernel_image() {
  cudaFuncAttributes attrs{};
  MT_CUDA_CHECK(cudaFuncGetAttributes(&attrs, probe_kernel));
  return KernelImage{attrs.binaryVersion, attrs.ptxVersion};
}

void probe_launch() {
  int* d_value = nullptr;
  MT_CUDA_CHECK(cudaMalloc(&d_value, sizeof(int)));
  // Free on every path: an exception must not leak device memory.
  struct Free {
    int* p;
    ~Free() { cudaFree(p); }
  } guard{d_value};
  MT_CUDA_CHECK(cudaMemset(d_value, 0, sizeof(int)));
  probe_kernel<<<1, 1>>>(d_value);
  MT_CUDA_KERNEL_LAUNCH_CHECK();
  int value = 0;
  MT_CUDA_CHECK(cudaMemcpy(&value, d_value, sizeof(int), cudaMemcpyDeviceToHost));
  MT_CHECK(value == 0x6d74, "probe kernel ran but wrote ", value, " instead of ", 0x6d74);
}

void synchronize() { MT_CUDA_CHECK(cudaDeviceSynchronize()); }

}  // namespace mt::cuda
