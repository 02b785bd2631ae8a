#pragma once
// A Ninja dry run (`ninja -n -v`) read as the plan of units the build is about to compile
// (launch/unit_plan): it lists only the steps Ninja will run, in its order, each "[k/N] command".
#include <string>

namespace kiln::drive {

// Its compiles (a -c with an output and a source), nvcc ones as CUDA units, as unit_plan lines.
std::string unit_plan_from_dry_run(const std::string& ninja_output, const std::string& group, int jobs);

}  // namespace kiln::drive
