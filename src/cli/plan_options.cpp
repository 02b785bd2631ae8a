#include "cli/plan_options.hpp"

#include "cli/command.hpp"
#include "cli/project_dir.hpp"
#include "probe/local_gpus.hpp"
#include "probe/machine.hpp"

namespace kiln::cli {

void add_plan_options(CLI::App& app, PlanOptions& o) {
  app.add_option("--gpu", o.gpus, "Build for this GPU (name or compute capability); repeatable")->envname("KILN_GPUS");
  app.add_option("--archs", o.archs, "Architecture list in any spelling (see kiln archs)");
  app.add_option("--from", o.archs_from, "Spelling of --archs: torch, cmake, nvcc or auto");
  app.add_option("--profile", o.profile, "production, distribution, dev or cpu (data/profiles.toml)")->envname("KILN_PROFILE");
  app.add_option("--set", o.sets, "KEY=VALUE: a PyTorch option (USE_NCCL=0), an environment variable for Python "
                                  "builds, a -D cache entry for CMake projects; repeatable");
  app.add_option("-j,--jobs", o.jobs_flag, "Parallel compile jobs (default: from cores and memory)")->envname("KILN_JOBS");
  app.add_option("--build-dir", o.build_dir, "Build folder (default: DIR/build-kiln)")->envname("KILN_BUILD_DIR");
  app.add_option("--build-type", o.build_type, "Release, RelWithDebInfo, Debug (default: the profile's, else Release)")
      ->envname("KILN_BUILD_TYPE");
  app.add_option("--cache-dir", o.cache_dir, "ccache directory for this build (default: ccache's own)")->envname("KILN_CACHE_DIR");
  app.add_flag("--no-ccache", o.no_ccache, "Build without ccache");
  app.add_option("-D,--define", o.cmake_defines, "Extra CMake cache entry KEY=VALUE; repeatable");
  app.add_option("--python", o.python, "Python interpreter for PyTorch and extension builds (default: $PYTHON, python3)");
  app.add_flag("--pip", o.pip, "Build a PyTorch checkout with pip install -e . --no-build-isolation -v");
}

run::Plan plan_or_throw(const std::string& dir, PlanOptions& o, io::Seams& s) {
  o.project_dir = resolve_project_dir(dir, s);
  o.ccache = !o.no_ccache;
  if (o.jobs_flag) o.jobs = o.jobs_flag;
  probe::SystemGpuQuery gpus(s);
  const auto machine = probe::probe_machine(s.fs, probe::online_cpus());
  auto plan = run::make_plan(o, s, gpus, machine);
  if (!plan) {
    if (plan.error().usage) throw UsageError(plan.error().message);
    throw Failure(plan.error().message);
  }
  return *plan;
}

}  // namespace kiln::cli
