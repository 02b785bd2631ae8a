#include "drive/stale_step.hpp"

#include <fmt/format.h>

#include "plan/stale_config.hpp"

namespace kiln::drive {

bool apply_config_check(BuildContext& ctx) {
  const auto& plan = ctx.plan;
  for (const auto& c : plan.config.changed)
    ctx.log << fmt::format("kiln: configuration: {} was {} ({}), now {}\n", c.key,
                           c.cached.empty() ? "unset" : c.cached, c.source, c.planned);
  for (const auto& k : plan.config.dropped) ctx.log << fmt::format("kiln: configuration: {} no longer passed\n", k);
  if (!plan.config.how.empty()) ctx.log << "kiln: configuration: " << plan.config.how << "\n";
  if (plan.config.reconfigure && plan.config.fresh == plan::FreshConfigure::remove_cache) {
    if (!ctx.s.fs.remove(plan.config.cache_path())) {
      ctx.log << "kiln: could not remove " << plan.config.cache_path() << "\n";
      ctx.o.failed_step = "configure";
      ctx.o.exit_code = 1;
      return false;
    }
  }
  ctx.s.fs.make_dirs(plan.config.cmake_dir);
  ctx.s.fs.write(plan.config.stamp_path(), plan::stamp_text(plan::planned_entries(plan)));
  return true;
}

}  // namespace kiln::drive
