#pragma once
// Running a tool by argv through the process seam, with kiln's environment.
#include <string>
#include <vector>

#include "io/process.hpp"

namespace kiln::probe {

inline io::ProcessResult run_tool(io::ProcessRunner& proc, std::vector<std::string> argv) {
  io::ProcessSpec spec;
  spec.argv = std::move(argv);
  return proc.run(spec);
}

}  // namespace kiln::probe
