#pragma once
// A reference-counted block of device memory (c10::StorageImpl). Tensors
// share a Storage; the last owner returns the bytes to the allocator.
#include <cstddef>
#include <memory>

#include "mt/core/Device.h"

namespace mt {

class Allocator;

class Storage {
 public:
  Storage(std::size_t nbytes, Device device);
  ~Storage();
  Storage(const Storage&) = delete;
  Storage& operator=(const Storage&) = delete;

  void* data() { return data_; }
  const void* data() const { return data_; }
  std::size_t nbytes() const { return nbytes_; }
  Device device() const { return device_; }

 private:
  void* data_ = nullptr;
  std::size_t nbytes_ = 0;
  Device device_;
  Allocator* allocator_ = nullptr;
};

}  // namespace mt
