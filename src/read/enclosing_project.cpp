#include "read/enclosing_project.hpp"

#include "read/cmake_lang.hpp"
#include "read/project_kind.hpp"

namespace kiln::read {

std::optional<bool> calls_project(const io::Filesystem& fs, const std::string& dir) {
  auto text = fs.read(dir + "/CMakeLists.txt");
  if (!text) return std::nullopt;
  auto commands = cmake::parse(*text);
  if (!commands) return std::nullopt;
  for (const auto& c : *commands)
    if (c.name == "project") return true;
  return false;
}

std::optional<EnclosingProject> enclosing_project(const io::Filesystem& fs, const std::string& dir, bool cmake_part) {
  std::string up = dir;
  // A folder is at most a few dozen levels deep; the bound keeps a cycle of links from spinning.
  for (int level = 0; level < 64; ++level) {
    const auto slash = up.find_last_of('/');
    if (slash == std::string::npos || up.size() <= 1) return std::nullopt;
    up = slash == 0 ? "/" : up.substr(0, slash);
    const std::string base = up == "/" ? "" : up;
    if (cmake_part) {
      if (calls_project(fs, base).value_or(false)) return EnclosingProject{up, "its CMakeLists.txt calls project()"};
    } else if (detect_project_kind(fs, base) != ProjectKind::unknown) {
      for (const char* f : {"CMakeLists.txt", "setup.py", "pyproject.toml"})
        if (fs.exists(base + "/" + f)) return EnclosingProject{up, f};
    }
    if (up == "/") return std::nullopt;
  }
  return std::nullopt;
}

}  // namespace kiln::read
