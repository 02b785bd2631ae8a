#pragma once
// The critical path of a build: the longest weighted chain through Ninja's dependency graph, or,
// without the graph, the longest chain of jobs that ran one after another (an upper estimate).
#include <map>
#include <string>
#include <vector>

#include "report/profile.hpp"

namespace kiln::report {

// Unit indices first to last; `length` gets the path's time (each unit's duration less its wait).
std::vector<size_t> graph_critical_path(const BuildGraph& g, const std::vector<Unit>& units,
                                        const std::map<std::string, size_t>& unit_of, long& length);
std::vector<size_t> chain_critical_path(const std::vector<Unit>& units, long& length);

}  // namespace kiln::report
