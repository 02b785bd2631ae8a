#include "probe/build_memory.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "core/data_toml.hpp"

namespace kiln::probe {
namespace {

const toml::table& jobs_table() {
  static const toml::table t = data::load_toml("build_jobs.toml");
  return t;
}

}  // namespace

double gib_per_job(JobKind kind, int n_archs) {
  const auto& t = jobs_table();
  if (kind == JobKind::cxx) return t["cxx"]["gib_per_job"].value_or(2.0);
  return t["nvcc"]["gib_base"].value_or(2.0) + std::max(1, n_archs) * t["nvcc"]["gib_per_arch"].value_or(0.5);
}

double min_build_disk_gib() {
  static const double v = data::load_toml("build_disk.toml")["build"]["min_free_gib"].value_or(20.0);
  return v;
}

JobsEstimate safe_jobs(const MachineInfo& m, JobKind kind, int n_archs) {
  constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
  const auto& t = jobs_table();
  JobsEstimate e;
  e.cores = std::max(1, m.usable_cores());
  e.memory_gib = static_cast<double>(m.build_memory()) / kGiB;
  e.margin_gib = std::max(t["margin"]["gib"].value_or(1.0), e.memory_gib * t["margin"]["fraction"].value_or(0.1));
  e.gib_per_job = gib_per_job(kind, n_archs);
  const double usable = std::max(0.0, e.memory_gib - e.margin_gib);
  e.memory_jobs = std::max(1, static_cast<int>(std::floor(usable / e.gib_per_job)));
  e.jobs = std::min(e.cores, e.memory_jobs);
  e.limited_by = e.memory_jobs < e.cores ? "memory" : "cores";
  const std::string per =
      kind == JobKind::cxx ? "C++ job" : fmt::format("nvcc job with {} arch{}", n_archs, n_archs == 1 ? "" : "s");
  e.arithmetic =
      fmt::format("min({} cores, max(1, floor(({:.1f} GiB - {:.1f} GiB margin) / {:.1f} GiB per {})) = {}) = {}",
                  e.cores, e.memory_gib, e.margin_gib, e.gib_per_job, per, e.memory_jobs, e.jobs);
  return e;
}

}  // namespace kiln::probe
