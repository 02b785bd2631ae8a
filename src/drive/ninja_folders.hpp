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

}  // namespace kiln::drive
