#pragma once
// What a CMake option controls, read from the project's CMakeLists.txt files as setup.py's switches
// are (data/read_setup.py's Effects), not from its name (issue 32): each option is followed into the
// if() branches it decides, and the branch's commands say what it does there:
//   cuda      it compiles CUDA: enable_language(CUDA), project(... CUDA), a .cu source, a CUDA
//             package, an add_subdirectory() of a folder that does, a list that reaches
//             project(LANGUAGES ...) gaining CUDA; or a list(FILTER/REMOVE_ITEM) dropping CUDA
//             sources in the branch the option avoids
//   fatal     message(FATAL_ERROR) is the branch (the option alone decides it): kiln sets the
//             value that passes
//   flags     it only adds definitions, compile or link options, link libraries
//   tool      it only sets how a tool runs (nvcc response files, arguments of a command the build
//             runs, such as a code generator), with flags or not
// Each option gets the effect, whether kiln wants it ON and the if()'s line, which
// project_knobs_read puts on its sighting and project_knobs.cpp decides on.
#include <map>
#include <string>
#include <vector>

#include "read/cmake_lang.hpp"

namespace kiln::read {

// One CMakeLists.txt of the project: its path relative to the project ("faiss/gpu/CMakeLists.txt"),
// its commands and its text (for the line a sighting quotes).
struct CmakeFile {
  std::string file;
  std::vector<cmake::Command> commands;
  std::string text;
};

struct CmakeEffect {
  std::string effect;    // cuda, fatal, flags, tool
  bool want_on = false;  // kiln wants the option ON (the branch that compiles CUDA, or passes)
  std::string where;     // "CMakeLists.txt:26", the if() that decides the branch
  std::string text;      // that line, trimmed
  std::string value;     // a STRING option compared with STREQUAL: the literal kiln sets ("" ON/OFF)
};

// The effects of the named options that `files` read in an if(); an option kiln cannot follow
// (an OR, a comparison other than X STREQUAL "literal", branches that disagree) is left out.
std::map<std::string, CmakeEffect> cmake_option_effects(const std::vector<CmakeFile>& files,
                                                        const std::vector<std::string>& options);

}  // namespace kiln::read
