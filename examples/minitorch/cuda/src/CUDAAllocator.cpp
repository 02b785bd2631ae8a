// The CUDA allocator: cudaMalloc/cudaFree with byte accounting, and the
// host<->device copies Tensor::to() uses. Registered with mt_core when
// mt_cuda is loaded.
#include <cstdio>
#include <mutex>

#include "CUDACheck.h"
#include "mt/core/Allocator.h"

namespace mt::cuda {

namespace {

class CUDAAllocator final : public Allocator {
 public:
  void* allocate(std::size_t nbytes, int device_index) override {
    if (nbytes == 0) return nullptr;
    MT_CUDA_CHECK(cudaSetDevice(device_index));
    void* ptr = nullptr;
    MT_CUDA_CHECK(cudaMalloc(&ptr, nbytes));
    std::lock_guard<std::mutex> lock(mutex_);
    stats_.allocations += 1;
    stats_.bytes_in_use += static_cast<std::int64_t>(nbytes);
    if (stats_.bytes_in_use > stats_.peak_bytes_in_use) stats_.peak_bytes_in_use = stats_.bytes_in_use;
    return ptr;
  }

  void deallocate(void* ptr, std::size_t nbytes, int /*device_index*/) noexcept override {
    if (ptr == nullptr) return;
    // Destructors must not throw; a failing cudaFree is reported, not hidden.
    const cudaError_t err = cudaFree(ptr);
    if (err != cudaSuccess && err != cudaErrorCudartUnloading) {
      std::fprintf(stderr, "mt_cuda: warning: cudaFree failed: %s\n", cudaGetErrorString(err));
    }
    std::lock_guard<std::mutex> lock(mutex_);
    stats_.bytes_in_use -= static_cast<std::int64_t>(nbytes);
  }

  void copy(void* dst, const void* src, std::size_t nbytes, CopyKind kind) override {
    const cudaMemcpyKind k = kind == CopyKind::HostToDevice   ? cudaMemcpyHostToDevice
                             : kind == CopyKind::DeviceToHost ? cudaMemcpyDeviceToHost
                                                              : cudaMemcpyDeviceToDevice;
    // cudaMemcpy synchronises with the default stream, so errors of kernels
    // launched before it are reported here too.
    MT_CUDA_CHECK(cudaMemcpy(dst, src, nbytes, k));
  }

  AllocatorStats stats() const override {
    std::lock_guard<std::mutex> lock(mutex_);
    return stats_;
  }

 private:
  mutable std::mutex mutex_;
  AllocatorStats stats_;
};

CUDAAllocator& instance() {
  static CUDAAllocator allocator;
  return allocator;
}

[[maybe_unused]] const bool registered = (set_allocator(DeviceType::CUDA, &instance()), true);

}  // namespace

}  // namespace mt::cuda
