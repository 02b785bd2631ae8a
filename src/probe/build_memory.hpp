#pragma once
// How many compile jobs fit in the memory a build will see, from the per-job figures in
// data/build_memory.toml, with the arithmetic spelled out so a user can check it. The planner
// uses the same function to choose -j.
#include <string>

#include "probe/machine.hpp"

namespace kiln::probe {

enum class JobKind { cxx, cuda };

struct BuildMemoryTable {
  double cxx_gib = 4, cuda_gib = 4, cuda_extra_arch_gib = 1, cuda_max_gib = 12, reserve_gib = 2, min_build_disk_gib = 20;
};
const BuildMemoryTable& build_memory_table();

struct JobsEstimate {
  int jobs = 1;
  int cores = 1;             // usable cores
  double memory_gib = 0;     // memory the build may use (MachineInfo::build_memory)
  double reserve_gib = 0;
  double gib_per_job = 0;
  int memory_jobs = 1;       // what memory alone allows
  std::string limited_by;    // "memory" or "cores"
  std::string arithmetic;    // "min(16 cores, floor((120.3 GiB - 2.0 GiB reserve) / 4.0 GiB per C++ job) = 29) = 16"
};

// `n_archs`: architectures each .cu file is compiled for (ignored for C++).
JobsEstimate safe_jobs(const MachineInfo& m, JobKind kind, int n_archs = 1);
double gib_per_job(JobKind kind, int n_archs);

}  // namespace kiln::probe
