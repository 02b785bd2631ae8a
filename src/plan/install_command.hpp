#pragma once
// How the plan installs a torch extension's wheel: the plan states it (text and JSON), the driver
// runs it, so it lives here, below both.
#include <string>
#include <vector>

namespace kiln::plan {

// pip installs the one wheel: never an index, never the dependencies, and the same version as the
// installed one is replaced (pip skips a local wheel of an installed version without --force-reinstall).
std::vector<std::string> wheel_install_argv(const std::string& python, const std::string& wheel);

}  // namespace kiln::plan
