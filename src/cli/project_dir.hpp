#pragma once
// Where a command's project lives: the DIR argument, else the bundled example.
#include <string>

#include "io/seams.hpp"

namespace kiln::cli {

// DIR made absolute; with no DIR, examples/minitorch under the current folder, beside the binary
// (../examples/minitorch from build/kiln) or in the source tree kiln was built from.
std::string resolve_project_dir(const std::string& dir, const io::Seams& s);

}  // namespace kiln::cli
