#pragma once
// Where the memory governor's ledger lives: one per machine (per user and cgroup), not per build
// folder, so that two builds on one machine share one budget instead of each reserving all of it.
// Builds in different cgroups (containers, Slurm jobs) have different limits, so each cgroup gets
// its own ledger.
#include <string>

#include "io/environment.hpp"
#include "io/fs.hpp"

namespace kiln::plan {

struct LedgerPlace {
  std::string path;
  std::string warning;  // the folder chosen was not private: why, and which one is used instead
};

// $KILN_LEDGER_DIR, else $XDG_RUNTIME_DIR/kiln, else /tmp/kiln-UID; then
// "ledger-<hash of /proc/self/cgroup>". On the real filesystem the folder is made (0700) when
// missing and used only when it is private to `uid` (io/private_folder); else kiln's folder in the
// user's cache, else a new folder of its own (mkdtemp), named in the warning.
LedgerPlace machine_ledger_place(const io::Filesystem& fs, const io::Environment& env, unsigned uid);

}  // namespace kiln::plan
