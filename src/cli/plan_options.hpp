#pragma once
// The options `kiln plan` and `kiln build` share, declared once so both read the same flags,
// environment variables and [section] of kiln.toml.
#include <CLI/CLI.hpp>

#include "io/seams.hpp"
#include "run/plan.hpp"

namespace kiln::cli {

struct PlanOptions : run::BuildRequest {
  int jobs_flag = 0;
  bool no_ccache = false;
};

void add_plan_options(CLI::App& app, PlanOptions& o);

// Resolves DIR, probes the machine and GPUs, and plans; throws UsageError / Failure on errors.
run::Plan plan_or_throw(const std::string& dir, PlanOptions& o, io::Seams& s);

}  // namespace kiln::cli
