#include "drive/build.hpp"

#include <chrono>
#include <fstream>

#include "drive/build_records.hpp"
#include "drive/cmake_build.hpp"
#include "drive/ninja_folders.hpp"
#include "drive/pytorch_build.hpp"
#include "drive/step_runner.hpp"
#include "drive/torch_extension_build.hpp"
#include "probe/oom_count.hpp"

namespace kiln::drive {
namespace {

void prepare_build_dir(const plan::Plan& plan, io::Seams& s) {
  s.fs.make_dirs(plan.build_dir);
  if (plan.governed()) s.fs.make_dirs(plan.build_dir + "/.kiln");
  if (plan.wraps_compilers()) {
    s.fs.make_dirs(plan.wrapper_dir());
    for (const char* name : {"c++", "nvcc"}) s.fs.symlink(plan.kiln_exe, plan.wrapper_dir() + "/" + name);
  }
  s.fs.write(plan.build_dir + "/kiln-build.json", plan.build_record_json());
  // This build's log and cache record start empty; the previous builds' are kept (a no-op rebuild
  // must not erase the figures kiln report shows for the build that compiled).
  keep_previous_record(s.fs, plan.log_path(), false);
  keep_previous_record(s.fs, plan.ccache_log_path(), true);
  if (!plan.ccache.empty()) s.fs.write(plan.ccache_log_path(), "");
}

void collect_records(const plan::Plan& plan, io::Seams& s, BuildOutcome& o) {
  if (!plan.ccache.empty())
    if (auto text = s.fs.read(plan.ccache_log_path())) {
      o.has_cache_stats = true;
      o.cache = launch::parse_ccache_stats_log(*text);
    }
  // torch.utils.cpp_extension builds in its own Ninja folder (setuptools/temp.*): the record goes
  // there too, so kiln report on that folder finds the machine's cores and kiln's logs.
  // With the extensions built at once, each has its Ninja folder deeper down (drive/ninja_folders).
  if (plan.kind != read::ProjectKind::cmake)
    if (auto root = extension_build_root(s.fs, plan.build_dir, plan.project_dir); !root.empty())
      for (const auto& d : ninja_folders_under(s.fs, root))
        s.fs.write(d + "/kiln-build.json", plan.build_record_json());
}

}  // namespace

std::unique_ptr<BuildDriver> driver_for(read::ProjectKind kind) {
  switch (kind) {
    case read::ProjectKind::cmake:
      return std::make_unique<CMakeProjectDriver>();
    case read::ProjectKind::pytorch:
      return std::make_unique<PyTorchCheckoutDriver>();
    case read::ProjectKind::extension:
      return std::make_unique<TorchExtensionDriver>();
    case read::ProjectKind::unknown:
      break;  // make_plan refuses a folder of unknown kind
  }
  return std::make_unique<CMakeProjectDriver>();
}

BuildOutcome run_build(const plan::Plan& plan, io::Seams& s, const ProgressSink& progress) {
  BuildOutcome o;
  o.started_ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
          .count();
  o.oom_kills_before = probe::oom_kill_count(s.fs);
  prepare_build_dir(plan, s);
  std::ofstream log(plan.log_path(), std::ios::trunc);
  StepRunner steps(s, plan.child_env(s.env), plan.project_dir, log, progress, o);
  BuildContext ctx{plan, s, steps, log, o};
  driver_for(plan.kind)->build(ctx);
  o.oom_kills_after = probe::oom_kill_count(s.fs);
  collect_records(plan, s, o);
  return o;
}

}  // namespace kiln::drive
