#pragma once
// The kiln options that shaped a plan, written back as arguments (`--gpu 'H100 SXM' --prune-archs`),
// so that what the plan is emitted into (an env file, a Dockerfile) says how to make it again.
#include <string>
#include <string_view>
#include <vector>

#include "plan/build_request.hpp"

namespace kiln::plan {

// Every option of `req` that differs from its default, in the order `kiln plan --help` lists them.
// Values are given as they are; quote them for a shell with shell_args().
std::vector<std::string> request_args(const BuildRequest& req);

// 'value', for any POSIX shell; a ' inside becomes '\''.
std::string shell_quote(std::string_view value);

// The arguments joined for a POSIX shell, each value that needs it single-quoted.
std::string shell_args(const std::vector<std::string>& args);

}  // namespace kiln::plan
