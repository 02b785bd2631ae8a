#include "probe/build_memory.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "core/data_toml.hpp"

namespace kiln::probe {

const BuildMemoryTable& build_memory_table() {
  static const BuildMemoryTable t = [] {
    auto d = data::load_toml("build_memory.toml");
    BuildMemoryTable b;
    b.cxx_gib = d["cxx"]["gib_per_job"].value_or(b.cxx_gib);
    b.cuda_gib = d["cuda"]["gib_per_job"].value_or(b.cuda_gib);
    b.cuda_extra_arch_gib = d["cuda"]["gib_per_extra_arch"].value_or(b.cuda_extra_arch_gib);
    b.cuda_max_gib = d["cuda"]["max_gib_per_job"].value_or(b.cuda_max_gib);
    b.reserve_gib = d["reserve"]["gib"].value_or(b.reserve_gib);
    b.min_build_disk_gib = d["disk"]["min_build_gib"].value_or(b.min_build_disk_gib);
    return b;
  }();
  return t;
}

double gib_per_job(JobKind kind, int n_archs) {
  const auto& t = build_memory_table();
  if (kind == JobKind::cxx) return t.cxx_gib;
  return std::min(t.cuda_max_gib, t.cuda_gib + t.cuda_extra_arch_gib * std::max(0, n_archs - 1));
}

JobsEstimate safe_jobs(const MachineInfo& m, JobKind kind, int n_archs) {
  constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
  JobsEstimate e;
  e.cores = std::max(1, m.usable_cores());
  e.memory_gib = static_cast<double>(m.build_memory()) / kGiB;
  e.reserve_gib = build_memory_table().reserve_gib;
  e.gib_per_job = gib_per_job(kind, n_archs);
  const double usable = std::max(0.0, e.memory_gib - e.reserve_gib);
  e.memory_jobs = std::max(1, static_cast<int>(std::floor(usable / e.gib_per_job)));
  e.jobs = std::min(e.cores, e.memory_jobs);
  e.limited_by = e.memory_jobs < e.cores ? "memory" : "cores";
  const std::string per =
      kind == JobKind::cxx ? "C++ job" : fmt::format("nvcc job with {} arch{}", n_archs, n_archs == 1 ? "" : "s");
  e.arithmetic = fmt::format("min({} cores, max(1, floor(({:.1f} GiB - {:.1f} GiB reserve) / {:.1f} GiB per {})) = {}) = {}",
                             e.cores, e.memory_gib, e.reserve_gib, e.gib_per_job, per, e.memory_jobs, e.jobs);
  return e;
}

}  // namespace kiln::probe
