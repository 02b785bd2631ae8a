#pragma once
// `--python PATH|NAME` of verify and inspect: the interpreter that will import the extension
// modules, checked to exist before any file is read.
#include <string>

#include "io/seams.hpp"

namespace kiln::cli {

// "" when none was given; else the interpreter's path. A name not found is a usage error.
std::string python_interpreter(const io::Seams& s, const std::string& given);

}  // namespace kiln::cli
