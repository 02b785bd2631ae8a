#include "run/jobs.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "core/data_toml.hpp"

namespace kiln::run {

JobsDecision decide_jobs(const probe::MachineInfo& m, int cuda_archs) {
  static const toml::table t = data::load_toml("build_jobs.toml");
  JobsDecision d;
  const double gib = 1024.0 * 1024.0 * 1024.0;
  d.gib_per_job = cuda_archs > 0 ? t["nvcc"]["gib_base"].value_or(2.0) + cuda_archs * t["nvcc"]["gib_per_arch"].value_or(0.5)
                                 : t["cxx"]["gib_per_job"].value_or(2.0);
  const double avail = static_cast<double>(m.build_memory()) / gib;
  const double margin = std::max(t["margin"]["gib"].value_or(1.0), avail * t["margin"]["fraction"].value_or(0.1));
  d.budget_gib = std::max(0.0, avail - margin);
  d.by_cores = std::max(1, m.usable_cores());
  d.by_memory = std::max(1, static_cast<int>(std::floor(d.budget_gib / d.gib_per_job)));
  d.jobs = std::min(d.by_cores, d.by_memory);
  d.arithmetic = fmt::format("min({} cores, floor(({:.1f} GiB available - {:.1f} GiB margin) / {:.1f} GiB per {} job) = {}) = {}",
                             d.by_cores, avail, margin, d.gib_per_job,
                             cuda_archs > 0 ? fmt::format("nvcc ({}-arch)", cuda_archs) : std::string("C++"),
                             d.by_memory, d.jobs);
  return d;
}

}  // namespace kiln::run
