#pragma once
// The operator table (a much reduced c10::Dispatcher): op name -> schema and
// one kernel pointer per device type. The table itself is generic; which ops
// exist, and the registration code that fills it, are generated from ops.toml
// at build time (see tools/gen_ops.py). Backend libraries register their
// kernels from static initialisers when they are loaded.
#include <array>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "mt/core/Device.h"

namespace mt {

// Type-erased kernel pointer; generated wrappers cast it back to the exact
// signature recorded in the schema (a function-pointer round trip is defined).
using KernelFunction = void (*)();

struct OperatorEntry {
  std::string name;
  std::string schema;  // e.g. "(Tensor a, Tensor b, float alpha, Tensor! out) -> ()"
  std::array<KernelFunction, kNumDeviceTypes> kernels{};
  std::array<std::string, kNumDeviceTypes> registered_by{};  // library that registered it
};

class Dispatcher {
 public:
  static Dispatcher& get();

  // Throws if the op already has a kernel for this device type, or if the
  // schema differs from an earlier registration (libraries built from
  // different ops.toml files).
  void register_kernel(std::string_view name, std::string_view schema, DeviceType type,
                       KernelFunction fn, std::string_view library);

  // The kernel for (op, device type); throws a message listing the device
  // types that do have a kernel when there is none.
  KernelFunction lookup(std::string_view name, DeviceType type) const;
  bool has_kernel(std::string_view name, DeviceType type) const;

  // A snapshot of the table, sorted by op name.
  std::vector<OperatorEntry> operators() const;

 private:
  Dispatcher() = default;
  mutable std::mutex mutex_;
  std::map<std::string, OperatorEntry, std::less<>> table_;
};

}  // namespace mt
