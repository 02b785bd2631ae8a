#pragma once
// Cores and memory as a build will see them: the CPU affinity mask and cgroup limits, not just
// nproc and MemTotal, because a container's compile jobs are killed at its cgroup limit.
#include <cstdint>
#include <optional>
#include <string>

#include "io/fs.hpp"

namespace kiln::probe {

struct MachineInfo {
  int cores = 1;                              // online CPUs usable by this process
  std::optional<int> cgroup_cpus;             // cpu.max quota / period, rounded up
  std::uint64_t mem_total = 0;                // bytes, /proc/meminfo MemTotal
  std::uint64_t mem_available = 0;            // bytes, MemAvailable
  std::optional<std::uint64_t> cgroup_limit;  // bytes, memory.max (v2) or limit_in_bytes (v1)
  std::uint64_t cgroup_usage = 0;             // bytes currently charged to the cgroup
  std::string cgroup_source;                  // which file set the limit
  // What a build may use: the smaller of available memory and the cgroup's headroom.
  std::uint64_t build_memory() const;
  int usable_cores() const;
};

// Reads /proc and /sys/fs/cgroup through the filesystem seam (`root` prefixes every path, for tests).
MachineInfo probe_machine(const io::Filesystem& fs, int online_cpus, const std::string& root = "");
int online_cpus();

}  // namespace kiln::probe
