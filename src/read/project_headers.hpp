#pragma once
// The header files a project folder holds (the bounded walk of project_files), so that a
// "fatal error: X.h: No such file or directory" for a header the project itself ships is
// diagnosed as an include path that does not reach it, not as a package to install (issue 33).
#include <string>
#include <vector>

#include "io/fs.hpp"

namespace kiln::read {

// Paths relative to the project ("cpu/include/ball_query.h"), in walk order.
std::vector<std::string> project_headers(const io::Filesystem& fs, const std::string& project_dir);

}  // namespace kiln::read
