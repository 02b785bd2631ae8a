#pragma once
// Never build a stale configuration in silence (plan/stale_config): before a CMake project or a
// PyTorch checkout builds, say what differs from the cached configuration, make CMake take it, and
// remember what this configure passes. Shared by the two drivers that run CMake.
#include "drive/driver.hpp"

namespace kiln::drive {

// False (with o.failed_step = "configure") when the stale cache could not be removed.
bool apply_config_check(BuildContext& ctx);

}  // namespace kiln::drive
