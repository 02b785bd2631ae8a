#pragma once
// What a profile says to do, in words: whether other work on the machine took the cores, the remedy
// for a build bound by one unit, and why a build ran above its bound.
#include <string>

#include "report/profile.hpp"

namespace kiln::report {

// Sets job_cpu_share and contended from the units' recorded CPU time.
void judge_contention(Profile& p);
// The remedy for a build bound by unit `u`, or "" when nothing kiln can name would shorten it.
std::string one_unit_remedy(const Profile& p, const Unit& u, long t0);
// The efficiency line's explanation of time above the bound.
std::string efficiency_reason(const Profile& p);

}  // namespace kiln::report
