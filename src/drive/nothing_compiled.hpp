#pragma once
// A torch extension build that compiled nothing though the project has C/C++/CUDA sources it should
// have built (issue 33: its build switch was missed, ext_modules was empty, and `--profile cpu` gave
// "built ... 0 compile steps", exit 0): a failure naming that nothing was compiled, the sources
// there are, and the likely cause from the plan's switches. A wheel-cache hit whose wheel holds an
// extension library is a no-op, not such a build; one whose wheel holds none is.
#include <optional>
#include <string>

#include "drive/driver.hpp"

namespace kiln::drive {

// `exec_units`: compiles kiln exec recorded during this build (-1 when it recorded none or did not
// run). nullopt when something was compiled (a Ninja step, a ccache or kiln exec record, a library
// in the wheel), or the project holds no native source.
std::optional<std::string> nothing_compiled_failure(const plan::Plan& plan, const BuildOutcome& o, int exec_units,
                                                    io::Seams& s);

}  // namespace kiln::drive
