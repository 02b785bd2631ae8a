#pragma once
// Gathers what a build folder recorded: .ninja_log (required), the dependency graph from
// `ninja -t graph`, and, when present, kiln-exec.jsonl, kiln-ccache-stats.log, kiln-nvcc-time.csv.
#include <optional>
#include <string>

#include <tl/expected.hpp>

#include "io/seams.hpp"
#include "report/profile.hpp"

namespace kiln::report {

// Cores for the bound: `forced` (kiln report --cores), else what the build recorded in
// kiln-build.json (the machine it ran on), else `this_machine`. kiln-build.json also names where
// the launcher's log and ccache's statistics are when they live elsewhere (a torch extension's
// Ninja folder is under the project, kiln's records under kiln's build folder).
// `record_dir`: where kiln-build.json is when `build_dir` has none (kiln's build folder of a torch
// extension whose Ninja folders are under the project).
tl::expected<ProfileInput, std::string> load_build(const std::string& build_dir, const io::Seams& s, int this_machine,
                                                   std::optional<int> forced = std::nullopt,
                                                   const std::string& record_dir = "");

}  // namespace kiln::report
