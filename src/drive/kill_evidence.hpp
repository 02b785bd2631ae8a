#pragma once
// Whether a compile that died of SIGKILL was the out-of-memory killer's doing. The log says only
// "Killed", which the diagnosis reads as memory (the usual sender) and answers with fewer jobs;
// kiln also knows how many OOM kills the kernel counted during the build and each unit's recorded
// peak. When the kernel counted none, the line returned goes into the build log, where the
// diagnosis reads it (resources.killed-not-oom) as the root cause instead.
#include <optional>
#include <string>

#include "diagnose/diagnosis.hpp"
#include "drive/driver.hpp"
#include "io/seams.hpp"
#include "plan/plan.hpp"

namespace kiln::drive {

// nullopt unless the diagnosis blames a kill and the OOM counts before and after are known and equal.
std::optional<std::string> killed_not_oom_line(const plan::Plan& plan, const BuildOutcome& outcome,
                                               const diagnose::Diagnosis& diagnosis, const io::Seams& s);

}  // namespace kiln::drive
