#pragma once
// A bounded walk over a project folder's own files: what a build made or installed (build/,
// dist/, *.egg-info, virtual environments, site-packages), hidden folders and symlinked folders
// are skipped, at most kMaxDepth deep and kMaxEntries entries. Used to find the sources a build
// should have compiled and the code that compiles at import.
#include <functional>
#include <string>

#include "io/fs.hpp"

namespace kiln::read {

// `visit(relative, path)` for each file; it returns false to stop the walk. The result is false
// when the walk hit its bound (there may be more files).
bool walk_project_files(const io::Filesystem& fs, const std::string& project_dir,
                        const std::function<bool(const std::string& relative, const std::string& path)>& visit);

}  // namespace kiln::read
