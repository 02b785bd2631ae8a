#include "mt/core/Allocator.h"

#include <array>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <mutex>

#include "mt/core/Error.h"

namespace mt {

namespace {

constexpr std::size_t kAlignment = 64;  // a cache line; also what SIMD loads like

class CPUAllocator final : public Allocator {
 public:
  void* allocate(std::size_t nbytes, int /*device_index*/) override {
    if (nbytes == 0) return nullptr;
    // aligned_alloc needs a size that is a multiple of the alignment.
    const std::size_t rounded = (nbytes + kAlignment - 1) / kAlignment * kAlignment;
    void* ptr = std::aligned_alloc(kAlignment, rounded);
    MT_CHECK(ptr != nullptr, "CPU allocation of ", nbytes, " bytes failed");
    std::lock_guard<std::mutex> lock(mutex_);
    stats_.allocations += 1;
    stats_.bytes_in_use += static_cast<std::int64_t>(nbytes);
    if (stats_.bytes_in_use > stats_.peak_bytes_in_use) stats_.peak_bytes_in_use = stats_.bytes_in_use;
    return ptr;
  }
  void deallocate(void* ptr, std::size_t nbytes, int /*device_index*/) noexcept override {
    if (ptr == nullptr) return;
    std::free(ptr);
    std::lock_guard<std::mutex> lock(mutex_);
    stats_.bytes_in_use -= static_cast<std::int64_t>(nbytes);
  }
  void copy(void* dst, const void* src, std::size_t nbytes, CopyKind /*kind*/) override {
    if (nbytes != 0) std::memcpy(dst, src, nbytes);
  }
  AllocatorStats stats() const override {
    std::lock_guard<std::mutex> lock(mutex_);
    return stats_;
  }

 private:
  mutable std::mutex mutex_;
  AllocatorStats stats_;
};

std::array<std::atomic<Allocator*>, kNumDeviceTypes>& registry() {
  static std::array<std::atomic<Allocator*>, kNumDeviceTypes> table{};
  return table;
}

}  // namespace

Allocator& cpu_allocator() {
  static CPUAllocator allocator;
  return allocator;
}

void set_allocator(DeviceType type, Allocator* allocator) {
  registry()[static_cast<int>(type)].store(allocator);
}

bool has_allocator(DeviceType type) {
  if (type == DeviceType::CPU) return true;
  return registry()[static_cast<int>(type)].load() != nullptr;
}

Allocator& get_allocator(DeviceType type) {
  if (type == DeviceType::CPU) return cpu_allocator();
  Allocator* allocator = registry()[static_cast<int>(type)].load();
  MT_CHECK(allocator != nullptr, "no allocator registered for device type '", device_type_name(type),
           "': link the mt_", device_type_name(type), " library");
  return *allocator;
}

}  // namespace mt
