#pragma once
// Where a command's project lives, and why: the DIR argument; else the current folder when it is a
// project; else the bundled example, but only from the kiln repository itself or when asked.
#include <string>

#include "io/seams.hpp"

namespace kiln::cli {

struct ProjectDir {
  std::string dir;     // absolute
  std::string reason;  // "the DIR argument", "the current folder", "the bundled example (--example)", ...
};

// With no DIR: the current folder when it holds a project (CMakeLists.txt, setup.py or
// pyproject.toml) and is not the kiln repository; the bundled example examples/minitorch when run
// from the kiln repository or with `example`; otherwise a usage error saying what to pass.
// `cwd` empty: the process's current folder.
ProjectDir resolve_project_dir(const std::string& dir, const io::Seams& s, bool example = false, std::string cwd = "");

// A folder named on the command line, made absolute from the current folder: kiln and the tools it
// drives run in other folders (a relative --build-dir once scattered kiln-build.json, the CMake tree
// and kiln-exec.jsonl over three places, and kiln report found none of them).
std::string absolute_dir(const std::string& dir);

}  // namespace kiln::cli
