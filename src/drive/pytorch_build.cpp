#include "drive/pytorch_build.hpp"

#include "drive/cmake_build.hpp"
#include "drive/stale_step.hpp"
#include "drive/step_runner.hpp"

namespace kiln::drive {

std::vector<std::string> python_build_artifacts(const io::Filesystem& fs, const std::string& project_dir) {
  std::vector<std::string> out;
  for (const char* sub : {"/build", "/torch/lib"})
    for (auto& a : find_artifacts(fs, project_dir + sub)) out.push_back(a);
  return out;
}

void PyTorchCheckoutDriver::build(BuildContext& ctx) {
  if (!apply_config_check(ctx)) return;
  auto r = ctx.steps.run("build", ctx.plan.build_argv(), true);
  ctx.o.build_time = r.took;
  if (!r.ok) return;
  ctx.o.ok = true;
  ctx.o.artifacts = python_build_artifacts(ctx.s.fs, ctx.plan.project_dir);
}

}  // namespace kiln::drive
