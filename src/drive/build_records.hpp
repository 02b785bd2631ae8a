#pragma once
// Records kept per build (issue 33): kiln-build.log and kiln-ccache-stats.log hold this build's
// log and cache figures; the previous builds' are kept beside them, newest first, as
// kiln-build.1.log ... kiln-build.4.log, so that a rebuild (a no-op too) adds a record and never
// erases the last one, and the folder holds at most kKeptBuilds + 1 of each.
#include <string>

#include "io/fs.hpp"

namespace kiln::drive {

inline constexpr int kKeptBuilds = 4;

// The name of the record `n` builds before this one: "DIR/kiln-build.log", 2 -> "DIR/kiln-build.2.log"
// (n == 0: `path` itself).
std::string kept_record_path(const std::string& path, int n);

// Before a build writes `path`: moves it to .1 (and .1 to .2 ...; the oldest beyond kKeptBuilds is
// removed). An empty record is not kept when `skip_empty` (a no-op build's empty ccache record would
// otherwise push out one that has figures).
void keep_previous_record(io::Filesystem& fs, const std::string& path, bool skip_empty);

}  // namespace kiln::drive
