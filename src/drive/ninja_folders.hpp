#pragma once
// The Ninja folders a torch extension's build leaves under the project's build/: build/temp.*,
// build/temp.*/kiln-ninja/<extension> when the extensions built at once, and deeper when a project
// or kiln gave each extension its own object folder (apex: build/temp.*/<extension>/...;
// build/temp.*/kiln-obj/<extension>/kiln-ninja/<extension>). Bounded depth: build/ may be large.
#include <string>
#include <vector>

#include "io/fs.hpp"

namespace kiln::drive {

// Folders holding a .ninja_log under `dir` (itself included), at most `depth` levels down, sorted.
std::vector<std::string> ninja_folders_under(const io::Filesystem& fs, const std::string& dir, int depth = 6);

// Where setuptools built a torch extension: the kiln build folder's own setuptools/ (issue 34: two
// builds with their own --build-dir never share the project's build/), else the project's build/
// for a build made before that. The first of the two that exists; empty when neither does.
std::string extension_build_root(const io::Filesystem& fs, const std::string& kiln_dir, const std::string& project_dir);

}  // namespace kiln::drive
