#pragma once
// The torch versions a project declares it builds with: quoted requirement strings naming torch
// in pyproject.toml ([project] dependencies, [build-system] requires) and setup.py
// (install_requires, setup_requires), and lines of requirements.txt. A torch extension compiles
// against the headers of the torch the build's interpreter has, so a version outside the range
// fails in a header (issue 33: "torch>=2.0" unchecked, then `fix the code at .../simd.h:129`).
#include <string>
#include <vector>

#include "core/requirement.hpp"
#include "io/fs.hpp"

namespace kiln::read {

struct TorchRequirement {
  core::Requirement requirement;
  std::string where;  // "pyproject.toml:12"
};

// Only requirements with a version specifier; each file read up to kProjectFileMaxBytes.
std::vector<TorchRequirement> read_torch_requirements(const io::Filesystem& fs, const std::string& project_dir);

// The requirements grouped by range: one entry per distinct specifier (clause order ignored), in
// first-declared order, its `where` naming every place ("pyproject.toml:4, setup.py:25"). A project
// that states its range in pyproject.toml and setup.py alike gets one note, not two (issue 33:
// facebookresearch/sam2 2b90b9f5).
std::vector<TorchRequirement> distinct_torch_ranges(const std::vector<TorchRequirement>& requirements);

// The same over one file's text (`file` names it in `where`); `lines` true for requirements.txt,
// where a requirement is a whole line rather than a quoted string.
std::vector<TorchRequirement> torch_requirements_in(std::string_view text, const std::string& file, bool lines);

}  // namespace kiln::read
