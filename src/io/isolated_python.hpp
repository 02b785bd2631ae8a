#pragma once
// A Python run that reads a project without running any of it (issue 34): `-I` keeps the
// script's folder, the current folder and PYTHON* variables off sys.path, `-S` (when the script
// needs no site-packages) skips site and its .pth files, and the run starts in "/", outside any
// project. What -I also drops that is the user's own, not the project's (PYTHONPATH's absolute
// folders, the user site outside a venv), is added back by a first line, so a probe finds the
// torch a build would.
#include <string>
#include <vector>

#include "io/process.hpp"

namespace kiln::io {

enum class PythonSite { needed, skipped };

// {python, "-I", ["-S",] "-c", script (with the first line when site is needed), args...}, cwd "/".
ProcessSpec isolated_python(const std::string& python, const std::string& script, PythonSite site,
                            const std::vector<std::string>& args = {});

// The spec's argv joined by spaces, as FakeProcessRunner keys its answers.
std::string isolated_python_line(const std::string& python, const std::string& script, PythonSite site,
                                 const std::vector<std::string>& args = {});

}  // namespace kiln::io
