#pragma once
// A profile computed from a build's records: units joined, the critical path, the bound max(total
// CPU / cores, critical path) and what bounds the build, parallelism and memory over time, time per
// target and per architecture.
#include "report/profile.hpp"

namespace kiln::report {

Profile compute_profile(const ProfileInput& in);

}  // namespace kiln::report
