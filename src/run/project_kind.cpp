#include "run/project_kind.hpp"

namespace kiln::run {

std::string to_string(ProjectKind k) {
  switch (k) {
    case ProjectKind::cmake: return "cmake";
    case ProjectKind::pytorch: return "pytorch";
    case ProjectKind::extension: return "extension";
    default: return "unknown";
  }
}

ProjectKind detect_project_kind(const io::Filesystem& fs, const std::string& dir) {
  const bool setup_py = fs.exists(dir + "/setup.py");
  const bool cmakelists = fs.exists(dir + "/CMakeLists.txt");
  if (setup_py && cmakelists && fs.is_directory(dir + "/torchgen")) return ProjectKind::pytorch;
  for (const char* f : {"/setup.py", "/pyproject.toml"}) {
    auto text = fs.read(dir + f);
    if (!text) continue;
    if (text->find("cpp_extension") != std::string::npos || text->find("CUDAExtension") != std::string::npos)
      return ProjectKind::extension;
    // pyproject build requirements that include torch: an extension built against it.
    if (std::string(f) == "/pyproject.toml" && text->find("requires") != std::string::npos &&
        text->find("\"torch") != std::string::npos)
      return ProjectKind::extension;
  }
  if (cmakelists) return ProjectKind::cmake;
  return ProjectKind::unknown;
}

}  // namespace kiln::run
