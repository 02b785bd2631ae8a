#pragma once
// What a finished build amounts to (BuildVerdict): its steps' outcome, then what the built files are
// worth (the same check as `kiln verify`), the switch that kept a project with CUDA code from
// compiling any, and the log's diagnosis when a step failed. `kiln build` prints it; nothing here
// prints.
#include <optional>
#include <string>

#include "binary/verify.hpp"
#include "diagnose/diagnosis.hpp"
#include "drive/driver.hpp"
#include "probe/disk.hpp"

namespace kiln::drive {

struct BuildVerdict {
  bool ok = false;                     // built, verified, and CUDA compiled where the project has CUDA code
  std::string failed_step;             // "" when ok: the outcome's step, "verify", "no-cuda" or "nothing-compiled"
  int exit_code = 0;                   // the outcome's; 1 when the built files fail verification
  binary::VerifyReport verified;       // the built files; empty when a step failed
  std::optional<std::string> no_cuda;  // a project with CUDA code compiled none: why (the gate to turn on)
  std::optional<std::string> nothing_compiled;  // a torch extension with native sources compiled nothing: why
  std::optional<std::string> full_disk;         // a step failed and the build folder's disk is (nearly) full
  diagnose::Diagnosis diagnosis;                // of the log, when a step failed
};

// What the diagnosis needs to word its fix in this plan's terms.
diagnose::PlanContext plan_context(const plan::Plan& plan);

// Judges a build that ran to its end (not stopped). `exec_units`: the compiles kiln exec recorded
// during this build (-1 when none), as drive::nothing_compiled_failure takes them. When a step failed on a full disk,
// the log gets the line the diagnosis reads (resources.no-space) before it is diagnosed.
BuildVerdict finish_build(const plan::Plan& plan, const BuildOutcome& outcome, int exec_units, io::Seams& s,
                          const probe::DiskQuery& disk);

}  // namespace kiln::drive
