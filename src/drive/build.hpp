#pragma once
// Executing a plan: one build driver per project kind (a CMake project, a PyTorch checkout, a torch
// extension) behind one small interface (drive/driver.hpp). What every kind shares (the build
// folder, kiln's record, the log, the compiler wrappers, ccache's statistics) is done here.
#include <memory>

#include "drive/driver.hpp"

namespace kiln::drive {

std::unique_ptr<BuildDriver> driver_for(read::ProjectKind kind);

// Prepares the build folder, runs the plan's driver, collects what every kind reports.
BuildOutcome run_build(const plan::Plan& plan, io::Seams& s, const ProgressSink& progress);

}  // namespace kiln::drive
