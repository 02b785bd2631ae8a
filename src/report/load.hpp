#pragma once
// Gathers what a build folder recorded: .ninja_log (required), the dependency graph from
// `ninja -t graph`, and, when present, kiln-exec.jsonl, kiln-ccache-stats.log, kiln-nvcc-time.csv.
#include <string>

#include <tl/expected.hpp>

#include "io/seams.hpp"
#include "report/profile.hpp"

namespace kiln::report {

tl::expected<ProfileInput, std::string> load_build(const std::string& build_dir, const io::Seams& s, int cores);

}  // namespace kiln::report
