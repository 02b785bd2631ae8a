#pragma once
// What a compile unit cost the last time it really compiled, wherever that is known: in this build
// folder (KILN_MEM_HISTORY), else in any checkout of the project through the user's history
// (KILN_UNIT_HISTORY, keyed by portable_unit_id: a fresh clone at another path starts with what an
// earlier build learned). One owner for the thread grants (launch/exec_launcher), the order of an
// extension's units (launch/plan_weights) and the ETA of a fresh build (drive/eta).
#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "core/launcher_env.hpp"
#include "io/environment.hpp"
#include "io/fs.hpp"
#include "launch/unit_plan.hpp"

namespace kiln::launch {

// What a unit's last real compile (not a cache hit) cost, kept in the history folder as one line
// "peak_kib cpu_ms wall_ms cores" (older files hold the peak alone).
struct UnitHistory {
  std::uint64_t peak_kib = 0;
  long cpu_ms = -1, wall_ms = -1;
  int cores = 1;
};
std::optional<UnitHistory> read_history(const io::Filesystem& fs, const std::string& history_dir,
                                        const std::string& output);
std::string format_history(const UnitHistory& h);
std::string history_key(const std::string& output);  // file name under the history folder
// A unit's name that holds in any checkout of the project: its output's path inside `project_dir`
// and a hash of its source's content (an edited source is another unit). "" when the source cannot
// be read. The history folder of the user's cache (KILN_UNIT_HISTORY) is keyed by it, so a fresh
// clone at another path starts with what an earlier build learned.
std::string portable_unit_id(const io::Filesystem& fs, const std::string& project_dir, const std::string& output,
                             const std::string& source);

// Where the history lives: the folders kiln build names in the compiles' environment.
struct HistoryPlaces {
  std::string build_history;  // KILN_MEM_HISTORY: this build folder's, keyed by output
  std::string units_dir;      // KILN_UNIT_HISTORY: the user's, keyed by portable_unit_id
  std::string project_dir;    // KILN_PROJECT_DIR
  static HistoryPlaces from_env(const core::LauncherEnv& kiln);
  static HistoryPlaces from_env(const io::Environment& env);
};

struct Learned {
  std::optional<UnitHistory> history;
  std::string unit_id;  // the portable key ("" without a user history folder or a readable source)
};

Learned learned_cost(const io::Filesystem& fs, const HistoryPlaces& at, const std::string& output,
                     const std::string& source);

// The CPU time of a real compile, when the history has one.
std::optional<long> learned_cpu(const std::optional<UnitHistory>& h);

// Each planned unit's wall time when it last compiled (output -> ms), for the ETA of a build whose
// folder has no record of its own yet.
std::map<std::string, long> learned_walls(const io::Filesystem& fs, const HistoryPlaces& at, const UnitPlan& plan);

}  // namespace kiln::launch
