#include "plan/jobs.hpp"

#include "probe/build_memory.hpp"

namespace kiln::plan {

// The planner and `kiln doctor` size jobs with one formula: probe::safe_jobs on data/build_jobs.toml.
JobsDecision decide_jobs(const probe::MachineInfo& m, int cuda_archs) {
  const auto e =
      cuda_archs > 0 ? probe::safe_jobs(m, probe::JobKind::cuda, cuda_archs) : probe::safe_jobs(m, probe::JobKind::cxx);
  JobsDecision d;
  d.jobs = e.jobs;
  d.by_cores = e.cores;
  d.by_memory = e.memory_jobs;
  d.gib_per_job = e.gib_per_job;
  d.budget_gib = std::max(0.0, e.memory_gib - e.margin_gib);
  d.arithmetic = e.arithmetic;
  return d;
}

}  // namespace kiln::plan
