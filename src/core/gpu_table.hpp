#pragma once
// The table of NVIDIA GPUs from data/gpus.toml and tolerant lookup by name or compute capability.
#include <string>
#include <string_view>
#include <vector>

#include <tl/expected.hpp>

namespace kiln::core {

struct GpuModel {
  std::string name;
  int cc = 0;           // 90 for 9.0
  std::string segment;  // datacenter, workstation, consumer, jetson
  std::string family;
  std::vector<std::string> aliases;
  bool aarch64_only = false;  // comes only with an Arm CPU (Jetson, Grace): x86-64 code never loads there
};

// An accelerator that is not an NVIDIA GPU (data/gpus.toml not_nvidia): named to say so.
struct OtherAccelerator {
  std::string name, vendor;
  std::vector<std::string> aliases;
};

struct GpuLookupError {
  std::string query;
  std::vector<std::string> suggestions;  // nearest names, best first
  std::string message;                   // one line, quoting the query and naming the suggestions
};

class GpuTable {
public:
  static const GpuTable& get();
  const std::vector<GpuModel>& all() const { return gpus_; }
  // "h100", "H100 SXM", "NVIDIA GeForce RTX 4090", "4090", or a compute capability ("9.0", "sm_90",
  // "sm90", "90").
  // A bare compute capability yields a synthetic model named after it.
  tl::expected<GpuModel, GpuLookupError> lookup(std::string_view query) const;

  static std::string normalize(std::string_view name);  // lower case, no spaces/dashes, no vendor words

private:
  std::vector<GpuModel> gpus_;
  std::vector<OtherAccelerator> others_;
};

}  // namespace kiln::core
