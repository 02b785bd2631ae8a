#include "mt/core/Dispatcher.h"

#include "mt/core/Error.h"

namespace mt {

Dispatcher& Dispatcher::get() {
  static Dispatcher instance;  // function-local: safe from static-init order
  return instance;
}

void Dispatcher::register_kernel(std::string_view name, std::string_view schema, DeviceType type,
                                 KernelFunction fn, std::string_view library) {
  MT_CHECK(fn != nullptr, "null kernel registered for ", name);
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = table_.find(name);
  if (it == table_.end()) {
    OperatorEntry entry;
    entry.name = std::string(name);
    entry.schema = std::string(schema);
    it = table_.emplace(entry.name, std::move(entry)).first;
  }
  OperatorEntry& entry = it->second;
  const int slot = static_cast<int>(type);
  if (entry.schema != schema) {
    std::string first = "another library";
    for (const std::string& lib : entry.registered_by) {
      if (!lib.empty()) first = lib;
    }
    MT_ERROR("operator '", name, "': ", library, " registers schema ", schema, " but ", first,
             " registered ", entry.schema, "; rebuild all libraries from the same ops.toml");
  }
  if (entry.kernels[slot] != nullptr) {
    MT_ERROR("operator '", name, "' already has a ", device_type_name(type), " kernel (from ",
             entry.registered_by[slot], "); ", library, " registers a second one");
  }
  entry.kernels[slot] = fn;
  entry.registered_by[slot] = std::string(library);
}

KernelFunction Dispatcher::lookup(std::string_view name, DeviceType type) const {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = table_.find(name);
  if (it == table_.end()) {
    MT_ERROR("operator '", name, "' has no registered kernels: is the library that implements it linked?");
  }
  const OperatorEntry& entry = it->second;
  KernelFunction fn = entry.kernels[static_cast<int>(type)];
  if (fn == nullptr) {
    std::string have;
    for (int i = 0; i < kNumDeviceTypes; ++i) {
      if (entry.kernels[i] == nullptr) continue;
      if (!have.empty()) have += ", ";
      have += device_type_name(static_cast<DeviceType>(i));
    }
    MT_ERROR("operator '", name, "' has no ", device_type_name(type), " kernel (available: ", have,
             ")");
  }
  return fn;
}

bool Dispatcher::has_kernel(std::string_view name, DeviceType type) const {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = table_.find(name);
  return it != table_.end() && it->second.kernels[static_cast<int>(type)] != nullptr;
}

std::vector<OperatorEntry> Dispatcher::operators() const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<OperatorEntry> out;
  out.reserve(table_.size());
  for (const auto& [name, entry] : table_) out.push_back(entry);
  return out;
}

}  // namespace mt
