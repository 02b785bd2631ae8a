#include "read/project_kind.hpp"

#include <toml++/toml.h>

namespace kiln::read {

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
    // pyproject [build-system] requires that include torch: an extension built against it. Only
    // there: a package that merely depends on torch at run time (bitsandbytes) builds with CMake.
    if (std::string(f) == "/pyproject.toml") {
      auto parsed = toml::parse(*text);
      if (!parsed) continue;
      if (auto req = parsed.table()["build-system"]["requires"].as_array())
        for (const auto& r : *req) {
          std::string name = r.value_or(std::string());
          if (name.rfind("torch", 0) == 0 && (name.size() == 5 || !std::isalnum(static_cast<unsigned char>(name[5]))))
            return ProjectKind::extension;
        }
    }
  }
  if (cmakelists) return ProjectKind::cmake;
  return ProjectKind::unknown;
}

}  // namespace kiln::read
