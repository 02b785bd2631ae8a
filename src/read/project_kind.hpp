#pragma once
// What kind of source tree kiln is asked to build; each kind is driven differently.
#include <string>

#include "io/fs.hpp"

namespace kiln::read {

enum class ProjectKind { cmake, pytorch, extension, unknown };
std::string to_string(ProjectKind k);  // "cmake", "pytorch", "extension", "unknown"

// pytorch: setup.py + CMakeLists.txt + torchgen/ (a PyTorch checkout). extension: setup.py or
// pyproject.toml that uses torch.utils.cpp_extension or needs torch to build. cmake: CMakeLists.txt.
ProjectKind detect_project_kind(const io::Filesystem& fs, const std::string& dir);

}  // namespace kiln::read
