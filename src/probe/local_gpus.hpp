#pragma once
// The GPUs on this machine: NVML through dlopen (no link-time dependency on the driver), falling
// back to nvidia-smi. Both absent means no driver, which is said plainly, not treated as an error.
#include <optional>
#include <string>
#include <vector>

#include "io/seams.hpp"

namespace kiln::probe {

struct LocalGpu {
  int index = 0;
  std::string name;
  int cc = 0;  // 90 for 9.0
  std::string driver_version;
  long long memory_mib = 0;
};

struct LocalGpus {
  std::string source;   // "nvml", "nvidia-smi" or "" when no driver was found
  std::string note;     // why nothing was found, when nothing was
  int driver_cuda = 0;  // the CUDA version the driver supports, 13000 for 13.0; 0 unknown
  std::vector<LocalGpu> gpus;
};

class GpuQuery {
 public:
  virtual ~GpuQuery() = default;
  virtual LocalGpus query() = 0;
};

// NVML first, then nvidia-smi through the process seam.
class SystemGpuQuery final : public GpuQuery {
 public:
  explicit SystemGpuQuery(const io::Seams& s) : s_(s) {}
  LocalGpus query() override;

 private:
  const io::Seams& s_;
};

// nvidia-smi --query-gpu=index,name,compute_cap,driver_version,memory.total --format=csv,noheader,nounits
std::vector<LocalGpu> parse_nvidia_smi_csv(const std::string& csv);
LocalGpus query_nvml();

}  // namespace kiln::probe
