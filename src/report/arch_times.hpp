#pragma once
// Time per GPU architecture: measured by nvcc --time when kiln exec or the build recorded it, else
// an even split of each CUDA unit's time over its architectures, else a note that it cannot be told.
#include "report/profile.hpp"

namespace kiln::report {

// Fills p.arch_times, p.arch_method and each unit's arch_ms / host_ms / per_arch_estimate_ms.
void arch_times(const ProfileInput& in, Profile& p);

}  // namespace kiln::report
