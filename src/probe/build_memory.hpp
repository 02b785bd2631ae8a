#pragma once
// How many compile jobs fit in the memory a build will see, with the arithmetic spelled out so a
// user can check it. The per-job figures and the margin are data/build_jobs.toml, the table the
// planner (plan::decide_jobs) sizes -j from, and the formula is the same, so `kiln doctor` and
// `kiln plan` agree (a unit test holds them to it).
#include <string>

#include "probe/machine.hpp"

namespace kiln::probe {

enum class JobKind { cxx, cuda };

struct JobsEstimate {
  int jobs = 1;
  int cores = 1;          // usable cores
  double memory_gib = 0;  // memory the build may use (MachineInfo::build_memory)
  double margin_gib = 0;  // kept free: max(margin.gib, margin.fraction * memory)
  double gib_per_job = 0;
  int memory_jobs = 1;     // what memory alone allows
  std::string limited_by;  // "memory" or "cores"
  std::string
      arithmetic;  // "min(16 cores, max(1, floor((120.0 GiB - 12.0 GiB margin) / 2.0 GiB per C++ job)) = 54) = 16"
};

// `n_archs`: architectures each .cu file is compiled for (ignored for C++).
JobsEstimate safe_jobs(const MachineInfo& m, JobKind kind, int n_archs = 1);
double gib_per_job(JobKind kind, int n_archs);
// data/build_disk.toml: free GiB a build folder should have.
double min_build_disk_gib();

}  // namespace kiln::probe
