#pragma once
// A build's units joined from its records: one per job of the latest build in .ninja_log, with the
// launcher's exec record for its output and its kind, target and source from the dependency graph.
#include <map>
#include <string>

#include "report/profile.hpp"

namespace kiln::report {

// Each output's unit index in Profile::units.
using UnitOf = std::map<std::string, size_t>;

// Fills p.units (with exec_matched and exec_problems) from `in`; the index by output.
UnitOf join_units(const ProfileInput& in, Profile& p);

}  // namespace kiln::report
