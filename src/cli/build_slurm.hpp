#pragma once
// kiln build --slurm: fits the plan to the Slurm allocation kiln runs in (Ninja's -j and the
// governor's cores and memory are the allocation's), checks the nodes before the first unit, and
// sets what `kiln exec` needs to run each unit as a job step (launch/slurm_step.hpp). Afterwards,
// however the build ended, no step of it is left running or queued.
#include <string>

#include "io/seams.hpp"
#include "plan/plan.hpp"
#include "probe/slurm.hpp"

namespace kiln::cli {

struct SlurmBuild {
  probe::Allocation allocation;
  probe::SlurmTools tools;
  std::string tag;  // the steps' name
};

// Throws Failure with a one-line error when a precondition does not hold.
SlurmBuild prepare_slurm(plan::Plan& plan, io::Seams& s);

// Cancels the build's steps still listed (after Ctrl-C, a killed launcher); returns a line for the
// build log, empty when none was left.
std::string finish_slurm(const SlurmBuild& b, io::Seams& s);

}  // namespace kiln::cli
