#pragma once
// Per-device memory management (c10::Allocator plus the copy half of
// c10::DeviceGuardImplInterface). mt_core ships the CPU allocator; backend
// libraries (mt_cuda) register theirs at load time, so mt_core never links a
// device runtime.
#include <cstddef>
#include <cstdint>

#include "mt/core/Device.h"

namespace mt {

enum class CopyKind { HostToDevice, DeviceToHost, DeviceToDevice };

struct AllocatorStats {
  std::int64_t allocations = 0;     // successful allocate() calls
  std::int64_t bytes_in_use = 0;
  std::int64_t peak_bytes_in_use = 0;
};

class Allocator {
 public:
  virtual ~Allocator() = default;
  virtual void* allocate(std::size_t nbytes, int device_index) = 0;
  virtual void deallocate(void* ptr, std::size_t nbytes, int device_index) noexcept = 0;
  // Copies nbytes between host memory and this allocator's device memory.
  virtual void copy(void* dst, const void* src, std::size_t nbytes, CopyKind kind) = 0;
  virtual AllocatorStats stats() const = 0;
};

// Registry: one allocator per device type. get_allocator() throws a
// message naming the library to link when none is registered.
void set_allocator(DeviceType type, Allocator* allocator);
Allocator& get_allocator(DeviceType type);
bool has_allocator(DeviceType type);

// The built-in host allocator: 64-byte aligned, counts bytes in use.
Allocator& cpu_allocator();

}  // namespace mt
