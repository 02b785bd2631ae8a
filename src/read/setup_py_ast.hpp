#pragma once
// setup.py read the way Python reads it: data/read_setup.py (Python's own ast module, run by the
// project's interpreter on the files' text: nothing is imported or executed) follows the project's
// own modules that setup.py imports, resolves the wrappers around environment reads and the
// comparison that gates the build, and prints JSON; this side turns that JSON into sightings, op
// switches and what the build does. What cannot be read statically comes back as `undecided`.
#include <string>
#include <string_view>
#include <vector>

#include <tl/expected.hpp>

#include "io/process.hpp"
#include "read/project_knobs_read.hpp"

namespace kiln::read {

// The reader's JSON (data/read_setup.py's output); an error names what is wrong with it.
tl::expected<SetupPyReading, std::string> parse_setup_reading(std::string_view json);

// Runs the embedded reader with `python` on DIR/setup.py. The error says why no reading came back
// (no interpreter, a crash, a Python too old to parse); the caller falls back to line patterns.
tl::expected<SetupPyReading, std::string> read_setup_py_ast(io::ProcessRunner& proc, const std::string& python,
                                                            const std::string& dir);

}  // namespace kiln::read
