#pragma once
// Where a tensor lives (c10::Device): a device type and, for CUDA, an index.
#include <cstdint>
#include <iosfwd>
#include <string>

namespace mt {

enum class DeviceType : std::int8_t { CPU = 0, CUDA = 1 };
inline constexpr int kNumDeviceTypes = 2;

const char* device_type_name(DeviceType type);  // "cpu", "cuda"

struct Device {
  DeviceType type = DeviceType::CPU;
  int index = 0;

  static Device cpu() { return {DeviceType::CPU, 0}; }
  static Device cuda(int index = 0) { return {DeviceType::CUDA, index}; }

  bool is_cpu() const { return type == DeviceType::CPU; }
  bool is_cuda() const { return type == DeviceType::CUDA; }
  std::string str() const;  // "cpu" or "cuda:0"

  friend bool operator==(const Device& a, const Device& b) {
    return a.type == b.type && a.index == b.index;
  }
  friend bool operator!=(const Device& a, const Device& b) { return !(a == b); }
};

std::ostream& operator<<(std::ostream& os, const Device& device);

}  // namespace mt
