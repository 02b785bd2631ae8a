#pragma once
// Whether the build's interpreter has a Python module, found as `import` would find it but not
// imported (importlib.util.find_spec on a top-level name runs no module code): an op builder's
// is_compatible that imports triton skips its op at build time when it is missing.
#include <map>
#include <string>
#include <vector>

#include "io/seams.hpp"

namespace kiln::probe {

// name -> found, for each valid top-level module name asked; a name the interpreter could not
// look up (or all of them, when it does not answer) is absent. Runs from "/", so the project's
// own folders are not on its path.
std::map<std::string, bool> find_python_modules(const io::Seams& s, const std::string& python,
                                                const std::vector<std::string>& names);

// The script `python` runs, exposed for tests: prints "name 1|0" per argument.
const char* find_python_modules_script();

}  // namespace kiln::probe
