#pragma once
// The words a project's top-level build files hold that could name a switch (upper-case
// identifiers: WITH_CUDA, MAX_JOBS), so that a --knob no file mentions is taken for a typo and the
// nearest of these suggested (issue 33). kiln's readers classify only some switches; a name any
// build file mentions is not called unread.
#include <set>
#include <string>

#include "io/fs.hpp"

namespace kiln::read {

// From setup.py, CMakeLists.txt, pyproject.toml and setup.cfg in `project_dir` (each read up to
// kProjectFileMaxBytes; one that is not a regular file is skipped).
std::set<std::string> switch_words(const io::Filesystem& fs, const std::string& project_dir);

}  // namespace kiln::read
