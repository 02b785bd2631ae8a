#pragma once
// Making a plan from a request: each choice in its own step, in the order make_plan takes them
// (tools, options, compilers, targets, jobs and launcher, environment, switches, the CMake cache).
#include <optional>
#include <string>
#include <vector>

#include <tl/expected.hpp>

#include "io/seams.hpp"
#include "plan/build_request.hpp"
#include "plan/plan.hpp"
#include "probe/local_gpus.hpp"
#include "probe/machine.hpp"

namespace kiln::plan {

// The --build-type values make_plan takes, and the profiles of data/profiles.toml (completion offers
// them from here).
const std::vector<std::string>& build_types();
std::vector<std::string> profile_names();

tl::expected<Plan, PlanError> make_plan(const BuildRequest& req, const io::Seams& s, probe::GpuQuery& gpus,
                                        const probe::MachineInfo& machine);

}  // namespace kiln::plan
