#pragma once
// The GPUs on this machine, from nvidia-smi (NVML's command-line tool; kiln is static and cannot
// load the driver's libraries itself). No nvidia-smi means no driver, which is said plainly, not
// treated as an error.
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
  std::string source;   // "nvidia-smi", or "" when no driver was found
  std::string note;     // why nothing was found, when nothing was
  int driver_cuda = 0;  // the CUDA version the driver supports, 13000 for 13.0; 0 unknown
  std::vector<LocalGpu> gpus;
};

class GpuQuery {
public:
  virtual ~GpuQuery() = default;
  virtual LocalGpus query() = 0;
};

// nvidia-smi through the process seam.
class SystemGpuQuery final : public GpuQuery {
public:
  explicit SystemGpuQuery(const io::Seams& s) : s_(s) {}
  LocalGpus query() override;

private:
  const io::Seams& s_;
};

// nvidia-smi --query-gpu=index,name,compute_cap,driver_version,memory.total --format=csv,noheader,nounits
std::vector<LocalGpu> parse_nvidia_smi_csv(const std::string& csv);
// "CUDA Version: 13.0" in nvidia-smi's summary (or `-q`): 13000; 0 when absent.
int parse_driver_cuda(const std::string& text);

}  // namespace kiln::probe
