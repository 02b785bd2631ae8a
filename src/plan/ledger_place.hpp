#pragma once
// Where the memory governor's ledger lives: one per machine (per user and cgroup), not per build
// folder, so that two builds on one machine share one budget instead of each reserving all of it.
// Builds in different cgroups (containers, Slurm jobs) have different limits, so each cgroup gets
// its own ledger.
#include <string>

#include "io/environment.hpp"
#include "io/fs.hpp"

namespace kiln::plan {

// $KILN_LEDGER_DIR, else $XDG_RUNTIME_DIR/kiln, else /tmp/kiln-UID; then
// "ledger-<hash of /proc/self/cgroup>". The launcher makes the folder (0700) when it is missing.
std::string machine_ledger_path(const io::Filesystem& fs, const io::Environment& env, unsigned uid);

}  // namespace kiln::plan
