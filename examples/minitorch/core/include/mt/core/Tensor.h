#pragma once
// A contiguous, row-major n-dimensional array on one device (a much reduced
// at::Tensor). Copies of a Tensor share storage, like PyTorch's.
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <string>
#include <vector>

#include "mt/core/Device.h"
#include "mt/core/Error.h"
#include "mt/core/ScalarType.h"
#include "mt/core/Storage.h"

namespace mt {

class Tensor {
 public:
  Tensor() = default;

  static Tensor empty(std::vector<std::int64_t> sizes, Device device = Device::cpu(),
                      ScalarType dtype = ScalarType::Float);
  // Host-only helpers used by tests and reference code.
  static Tensor full(std::vector<std::int64_t> sizes, float value);
  static Tensor zeros(std::vector<std::int64_t> sizes) { return full(std::move(sizes), 0.0f); }

  bool defined() const { return storage_ != nullptr; }
  Device device() const { return device_; }
  ScalarType dtype() const { return dtype_; }
  const std::vector<std::int64_t>& sizes() const { return sizes_; }
  std::int64_t size(int dim) const;
  int dim() const { return static_cast<int>(sizes_.size()); }
  std::int64_t numel() const { return numel_; }
  std::size_t nbytes() const { return static_cast<std::size_t>(numel_) * element_size(dtype_); }
  std::string shape_str() const;  // "[480, 640, 3]"

  void* raw_data() { return storage_ ? storage_->data() : nullptr; }
  const void* raw_data() const { return storage_ ? storage_->data() : nullptr; }

  // Typed access; checks the element type so a float kernel cannot read ints.
  template <typename T> T* data() {
    MT_CHECK(dtype_ == ScalarTypeOf<T>::value, "tensor has dtype ", scalar_type_name(dtype_),
             ", requested ", scalar_type_name(ScalarTypeOf<T>::value));
    return static_cast<T*>(raw_data());
  }
  template <typename T> const T* data() const {
    MT_CHECK(dtype_ == ScalarTypeOf<T>::value, "tensor has dtype ", scalar_type_name(dtype_),
             ", requested ", scalar_type_name(ScalarTypeOf<T>::value));
    return static_cast<const T*>(raw_data());
  }

  // A copy of this tensor on another device (through the allocators' copy).
  Tensor to(Device device) const;

 private:
  std::shared_ptr<Storage> storage_;
  std::vector<std::int64_t> sizes_;
  std::int64_t numel_ = 0;
  Device device_;
  ScalarType dtype_ = ScalarType::Float;
};

// Argument checks shared by the operator implementations.
void check_shape(const Tensor& t, const char* name, std::initializer_list<std::int64_t> sizes,
                 const char* op);
void check_same_shape(const Tensor& a, const char* a_name, const Tensor& b, const char* b_name,
                      const char* op);
void check_float(const Tensor& t, const char* name, const char* op);

}  // namespace mt
