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

// `args` (request_args) for a build of the project copied to `image_dir` on another machine (a
// Dockerfile): --build-dir, --cache-dir and --python, which name this machine, are left out, and so
// is any other value that is an absolute path outside the project ("-D X=/opt/y"); a path inside the
// project is moved under image_dir. Each argument left out goes to `left_out` as "FLAG VALUE".
std::vector<std::string> portable_args(const std::vector<std::string>& args, const std::string& project_dir,
                                       const std::string& image_dir, std::vector<std::string>& left_out);

// 'value', for any POSIX shell; a ' inside becomes '\''.
std::string shell_quote(std::string_view value);

// The arguments joined for a POSIX shell, each value that needs it single-quoted.
std::string shell_args(const std::vector<std::string>& args);

}  // namespace kiln::plan
