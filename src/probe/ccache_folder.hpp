#pragma once
// Whether ccache can use its cache folder. An unusable one fails every compile made through ccache
// ("ccache: error: Failed to create directory DIR/tmp: Not a directory"), so `kiln doctor` reports
// it and `kiln plan` builds without ccache, before a build finds out one compile at a time.
#include <optional>
#include <string>

#include "io/fs.hpp"
#include "io/process.hpp"

namespace kiln::probe {

// What is wrong with `folder` as ccache's folder ("is a file, not a folder", "cannot be written by
// this user", ...), nullopt when ccache can use it. A missing folder is fine when ccache can make
// it: its nearest existing parent is a folder this user can write in.
std::optional<std::string> ccache_folder_problem(io::Filesystem& fs, const std::string& folder);

// The folder `ccache` (an executable) uses with this environment, by `ccache --get-config
// cache_dir` (ccache 4.4 and later); nullopt when it cannot say.
std::optional<std::string> ccache_folder_of(io::ProcessRunner& proc, const std::string& ccache);

}  // namespace kiln::probe
