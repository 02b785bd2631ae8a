#include "mt/core/Tensor.h"

#include <algorithm>

#include "mt/core/Allocator.h"

namespace mt {

Tensor Tensor::empty(std::vector<std::int64_t> sizes, Device device, ScalarType dtype) {
  std::int64_t numel = 1;
  for (std::int64_t s : sizes) {
    MT_CHECK(s >= 0, "negative size ", s, " in Tensor::empty");
    numel *= s;
  }
  Tensor t;
  t.sizes_ = std::move(sizes);
  t.numel_ = numel;
  t.device_ = device;
  t.dtype_ = dtype;
  t.storage_ = std::make_shared<Storage>(static_cast<std::size_t>(numel) * element_size(dtype), device);
  return t;
}

Tensor Tensor::full(std::vector<std::int64_t> sizes, float value) {
  Tensor t = empty(std::move(sizes));
  float* p = t.data<float>();
  std::fill(p, p + t.numel(), value);
  return t;
}

std::int64_t Tensor::size(int d) const {
  MT_CHECK(d >= 0 && d < dim(), "dimension ", d, " out of range for a tensor of shape ", shape_str());
  return sizes_[static_cast<std::size_t>(d)];
}

std::string Tensor::shape_str() const {
  std::string s = "[";
  for (std::size_t i = 0; i < sizes_.size(); ++i) {
    if (i != 0) s += ", ";
    s += std::to_string(sizes_[i]);
  }
  return s + "]";
}

Tensor Tensor::to(Device target) const {
  MT_CHECK(defined(), "to(", target, ") on an undefined tensor");
  Tensor out = empty(sizes_, target, dtype_);
  if (nbytes() == 0) return out;
  if (device_.is_cpu() && target.is_cpu()) {
    cpu_allocator().copy(out.raw_data(), raw_data(), nbytes(), CopyKind::HostToDevice);
  } else if (device_.is_cpu()) {
    get_allocator(target.type).copy(out.raw_data(), raw_data(), nbytes(), CopyKind::HostToDevice);
  } else if (target.is_cpu()) {
    get_allocator(device_.type).copy(out.raw_data(), raw_data(), nbytes(), CopyKind::DeviceToHost);
  } else {
    MT_CHECK(device_.type == target.type, "copy from ", device_, " to ", target, " is not supported");
    get_allocator(device_.type).copy(out.raw_data(), raw_data(), nbytes(), CopyKind::DeviceToDevice);
  }
  return out;
}

void check_shape(const Tensor& t, const char* name, std::initializer_list<std::int64_t> sizes,
                 const char* op) {
  // A negative entry is a wildcard ("any size").
  bool ok = t.dim() == static_cast<int>(sizes.size());
  int d = 0;
  for (std::int64_t s : sizes) {
    if (!ok) break;
    ok = s < 0 || t.size(d) == s;
    ++d;
  }
  if (!ok) {
    std::string want = "[";
    int i = 0;
    for (std::int64_t s : sizes) want += (i++ ? ", " : "") + (s < 0 ? std::string("*") : std::to_string(s));
    MT_ERROR(op, ": argument '", name, "' has shape ", t.shape_str(), ", expected ", want, "]");
  }
}

void check_same_shape(const Tensor& a, const char* a_name, const Tensor& b, const char* b_name,
                      const char* op) {
  if (a.sizes() != b.sizes()) {
    MT_ERROR(op, ": arguments '", a_name, "' ", a.shape_str(), " and '", b_name, "' ", b.shape_str(),
             " must have the same shape");
  }
}

void check_float(const Tensor& t, const char* name, const char* op) {
  if (t.dtype() != ScalarType::Float) {
    MT_ERROR(op, ": argument '", name, "' has dtype ", scalar_type_name(t.dtype()), ", expected float32");
  }
}

}  // namespace mt
