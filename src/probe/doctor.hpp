#pragma once
// `kiln doctor` as a library call: every detector run against the seams, their findings gathered.
// `kiln plan` calls run_doctor to switch off features whose libraries are missing.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "io/seams.hpp"
#include "probe/build_memory.hpp"
#include "probe/cmake_cache.hpp"
#include "probe/cuda_toolkit.hpp"
#include "probe/disk.hpp"
#include "probe/finding.hpp"
#include "probe/libraries.hpp"
#include "probe/local_gpus.hpp"
#include "probe/machine.hpp"
#include "probe/python_torch.hpp"
#include "probe/toolchain.hpp"

namespace kiln::probe {

struct DoctorOptions {
  bool deep = false;
  std::string python;           // --python
  std::string cmake_cache;      // --cmake-cache; empty: no audit
  std::string self_exe;         // kiln, for the library-load child; empty: loads are not checked
  std::string sysroot;          // prefixes fixed system paths (/usr/local/cuda*, /usr/lib, /proc, /sys), for tests
  std::string build_dir = ".";  // where a build would write (free disk)
  std::string work_dir;         // --deep's test sources; empty: $XDG_CACHE_HOME/kiln/doctor or ~/.cache/kiln/doctor
  int online_cpus = 0;          // 0: ask the OS
  // Run the Python probe (whose `import torch` takes seconds) beside the other detectors. Needs
  // thread-safe seams: the real ones are; the fakes are not, so tests leave this off.
  bool parallel = false;
  GpuQuery* gpu_query = nullptr;          // nullptr: NVML, then nvidia-smi
  const DiskQuery* disk_query = nullptr;  // nullptr: statvfs
};

// What a checked folder is for. Serialised only through to_string ("build", "ccache", "kiln cache", "tmp").
enum class DiskRole { build, ccache, kiln_cache, tmp };
std::string_view to_string(DiskRole r);
inline constexpr DiskRole kDiskRoles[] = {DiskRole::build, DiskRole::ccache, DiskRole::kiln_cache, DiskRole::tmp};

struct DiskReport {
  DiskRole role = DiskRole::build;
  std::string path;     // as asked
  std::string checked;  // the existing folder statvfs was asked about
  std::optional<DiskSpace> space;
};

struct MachineReport {
  MachineInfo info;
  JobsEstimate jobs_cxx, jobs_cuda;  // jobs_cuda for one architecture
  std::vector<DiskReport> disks;
};

struct DoctorReport {
  CudaToolkit cuda;
  PythonInfo python;
  std::vector<LibraryReport> libraries;
  Toolchain toolchain;
  LocalGpus gpus;
  MachineReport machine;
  std::optional<CmakeCacheAudit> cmake_cache;
  std::string cmake_cache_error;  // the file could not be audited
  Findings findings;              // every area's, in report order
  long elapsed_ms = 0;
  bool has_error() const { return probe::has_error(findings); }
  // Whether a library (by data/libraries.toml key) is usable: found and loads.
  bool library_usable(const std::string& key) const;
};

DoctorReport run_doctor(const io::Seams& s, const DoctorOptions& o);

}  // namespace kiln::probe
