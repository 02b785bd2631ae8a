#pragma once
// A project's git submodules (.gitmodules' `path =` lines) and which of them are empty on disk: a
// clone without --recursive leaves each one an empty folder, and the build then misses its headers
// (issue 33). The file is untrusted input: read up to a bound, and a path that leaves the project
// (absolute, or with a ".." part) is ignored.
#include <string>
#include <string_view>
#include <vector>

#include "io/fs.hpp"

namespace kiln::read {

inline constexpr std::uint64_t kGitmodulesMaxBytes = std::uint64_t{1} << 20;

// The submodule paths .gitmodules lists, relative to the project, in file order.
std::vector<std::string> parse_gitmodules(std::string_view text);

// The listed submodules whose folder is missing or holds nothing (not even the .git file a
// checked-out submodule has). Empty when the project has no readable .gitmodules.
std::vector<std::string> empty_submodules(const io::Filesystem& fs, const std::string& project_dir);

}  // namespace kiln::read
