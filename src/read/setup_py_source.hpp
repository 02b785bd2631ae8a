#pragma once
// A project's setup.py as text, for the diagnosis of a traceback whose setup.py frames Python
// printed without their lines (setuptools runs setup.py's text with exec: diagnose/traceback.hpp).
// Read up to kProjectFileMaxBytes; a setup.py that is larger or not a regular file is not read.
#include <string>

#include "io/fs.hpp"

namespace kiln::read {

// "" when the project has no setup.py kiln may read.
std::string setup_py_source(const io::Filesystem& fs, const std::string& project_dir);

}  // namespace kiln::read
