#include "drive/nothing_compiled.hpp"

#include <fmt/format.h>

#include "read/native_sources.hpp"
#include "read/project_knobs.hpp"

namespace kiln::drive {

std::optional<std::string> nothing_compiled_failure(const plan::Plan& plan, const BuildOutcome& o, int exec_units,
                                                    io::Seams& s) {
  // A CMake project or a PyTorch checkout with 0 steps is an up-to-date Ninja folder. A wheel from
  // kiln's wheel cache compiled nothing by design: what it holds is what counts.
  if (plan.kind != read::ProjectKind::extension || !o.ok || !o.artifacts.empty()) return std::nullopt;
  const bool cache_saw_compile = o.has_cache_stats && o.cache.hits + o.cache.misses + o.cache.uncacheable > 0;
  if (!o.wheel_cache.hit && (o.steps_run > 0 || cache_saw_compile || exec_units > 0)) return std::nullopt;
  const auto sources = read::find_native_sources(s.fs, plan.project_dir);
  if (sources.count == 0) return std::nullopt;
  std::string cause = read::extension_gate_reason(plan.knobs, s.env);
  if (cause.empty())
    cause =
        "kiln found no switch in setup.py that decides it; read the log for what setup.py skipped (an "
        "ext_modules left empty, a condition on the platform or on torch)";
  const std::string what =
      o.wheel_cache.hit
          ? "the wheel installed from kiln's wheel cache (built before from the same inputs) holds no extension library"
          : "the build ran no compile (no Ninja step, no ccache or kiln exec record of one) and its wheel holds no "
            "extension library";
  return fmt::format("nothing was compiled: {} has C/C++/CUDA sources ({}) but {}; likely cause: {}", plan.project_dir,
                     sources.summary(), what, cause);
}

}  // namespace kiln::drive
