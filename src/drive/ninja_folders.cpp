#include "drive/ninja_folders.hpp"

#include <algorithm>

namespace kiln::drive {

std::vector<std::string> ninja_folders_under(const io::Filesystem& fs, const std::string& dir, int depth) {
  std::vector<std::string> out;
  std::vector<std::pair<std::string, int>> stack = {{dir, 0}};
  while (!stack.empty()) {
    auto [d, level] = stack.back();
    stack.pop_back();
    if (fs.exists(d + "/.ninja_log")) out.push_back(d);
    if (level >= depth) continue;
    for (const auto& name : fs.list(d))
      if (name[0] != '.' && fs.is_directory(d + "/" + name) && !fs.is_symlink(d + "/" + name))
        stack.push_back({d + "/" + name, level + 1});
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::string extension_build_root(const io::Filesystem& fs, const std::string& kiln_dir,
                                 const std::string& project_dir) {
  for (const auto& root : {kiln_dir + "/setuptools", project_dir + "/build"})
    if (fs.is_directory(root)) return root;
  return "";
}

}  // namespace kiln::drive
