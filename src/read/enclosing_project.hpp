#pragma once
// Whether a folder is a project of its own or a part of one: kiln must not build `core/` of a CMake
// project (it has no project() call; the root's add_subdirectory gives it its settings and its
// targets' dependencies), nor plan a package folder of a Python project as nothing at all.
#include <optional>
#include <string>

#include "io/fs.hpp"

namespace kiln::read {

// Whether dir/CMakeLists.txt calls project(), which a CMake project's top level must and an
// add_subdirectory'd folder does not. nullopt when the file is absent or cannot be parsed.
std::optional<bool> calls_project(const io::Filesystem& fs, const std::string& dir);

struct EnclosingProject {
  std::string dir;  // the project's folder
  std::string why;  // "its CMakeLists.txt calls project()", "setup.py"
};

// The nearest folder above `dir` that is a project: for `cmake_part`, the nearest whose
// CMakeLists.txt calls project(); else the nearest kiln can build (CMakeLists.txt, setup.py,
// pyproject.toml). nullopt when there is none up to the root.
std::optional<EnclosingProject> enclosing_project(const io::Filesystem& fs, const std::string& dir, bool cmake_part);

}  // namespace kiln::read
