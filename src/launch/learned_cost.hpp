#pragma once
// What a compile unit cost the last time it really compiled, wherever that is known: in this build
// folder (KILN_MEM_HISTORY), else in any checkout of the project through the user's history
// (KILN_UNIT_HISTORY, keyed by portable_unit_id: a fresh clone at another path starts with what an
// earlier build learned). One owner for the thread grants (launch/exec_launcher), the order of an
// extension's units (launch/plan_weights) and the ETA of a fresh build (drive/eta).
#include <map>
#include <optional>
#include <string>

#include "io/environment.hpp"
#include "io/fs.hpp"
#include "launch/exec_launcher.hpp"
#include "launch/unit_plan.hpp"

namespace kiln::launch {

// Where the history lives: the folders kiln build names in the compiles' environment.
struct HistoryPlaces {
  std::string build_history;  // KILN_MEM_HISTORY: this build folder's, keyed by output
  std::string units_dir;      // KILN_UNIT_HISTORY: the user's, keyed by portable_unit_id
  std::string project_dir;    // KILN_PROJECT_DIR
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
