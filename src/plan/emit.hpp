#pragma once
// A plan written out for other tools: a .env file (like the seeds' .env.build), CMake presets or a
// -D list, JSON, and a multi-stage Dockerfile.
#include <string>
#include <vector>

#include <tl/expected.hpp>

#include "plan/plan.hpp"
#include "plan/request_args.hpp"  // shell_quote

namespace kiln::plan {

std::string emit_env(const Plan& p);    // KEY='value' lines, safe for `set -a; . ./file`
std::string emit_cmake(const Plan& p);  // CMakeUserPresets.json for CMake projects, a -D list otherwise
std::string emit_dockerfile(const Plan& p);
// The formats emit() takes, in its order: its error and completion name them from here.
const std::vector<std::string>& emit_formats();
tl::expected<std::string, std::string> emit(const Plan& p,
                                            const std::string& format);  // text|env|cmake|json|dockerfile

}  // namespace kiln::plan
