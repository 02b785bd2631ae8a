#pragma once
// What `kiln report DIR` profiles, from whatever folder `kiln build` printed: a Ninja folder; kiln's
// build folder (build-kiln: its record names the project); or the project folder. A torch
// extension's Ninja logs live under the project's build/ (build/temp.*, and one folder per
// extension, build/temp.*/kiln-ninja/<extension>, when the extensions built at once), kiln's
// records in kiln's build folder. Several Ninja logs make one profile: their times are relative to
// each Ninja's start, so each log is placed on the clock of the launcher's records (kiln-exec.jsonl).
#include <optional>
#include <string>
#include <vector>

#include <tl/expected.hpp>

#include "io/seams.hpp"
#include "report/profile.hpp"

namespace kiln::report {

struct BuildFolders {
  std::vector<std::string> ninja_dirs;  // every Ninja folder of the build, sorted
  std::string kiln_dir;                 // kiln's build folder ("" none found)
  std::string project_dir;              // the project built: as kiln's record names it, else guessed ("" none)
  std::string wheel_cache_hit;          // the last build installed a kept wheel: the log's line ("" no)
};

BuildFolders find_build_folders(const io::Filesystem& fs, const std::string& dir);

// One profile input from several Ninja folders' inputs (each loaded by load_build): jobs shifted
// onto one clock by the launcher's records, graphs joined. Inputs without a matching record keep
// their own clock, placed one after another (a serial build), and a note says so.
ProfileInput merge_inputs(std::vector<ProfileInput> parts);

}  // namespace kiln::report
