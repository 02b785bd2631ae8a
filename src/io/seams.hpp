#pragma once
// The bundle of I/O seams a command runs against. main() wires the real ones; tests wire fakes.
#include <ostream>

#include "io/clock.hpp"
#include "io/environment.hpp"
#include "io/fs.hpp"
#include "io/process.hpp"

namespace kiln::io {

struct Seams {
  Filesystem& fs;
  ProcessRunner& proc;
  Clock& clock;
  Environment& env;
  std::ostream& out;  // results
  std::ostream& err;  // diagnostics and progress
};

// PATH lookup through the seams: the first executable `name` in env PATH, or nullopt.
std::optional<std::string> which(const Seams& s, const std::string& name);

}  // namespace kiln::io
