#pragma once
// How many compile jobs fit: the smaller of usable cores and what memory allows, with the
// arithmetic kept as text so the plan can show it.
#include <cstdint>
#include <string>

#include "probe/machine.hpp"

namespace kiln::plan {

struct JobsDecision {
  int jobs = 1;
  int by_cores = 1;
  int by_memory = 1;
  double gib_per_job = 0;
  double budget_gib = 0;
  std::string arithmetic;  // "min(16 cores, floor((120.0 GiB - 12.0 GiB margin) / 3.5 GiB per nvcc job) = 30) = 16"
};

// `cuda_archs` > 0 sizes for nvcc jobs with that many architectures; 0 for plain C++.
JobsDecision decide_jobs(const probe::MachineInfo& m, int cuda_archs);

}  // namespace kiln::plan
