#include "read/project_files.hpp"

#include <array>
#include <string_view>

#include "core/text.hpp"

namespace kiln::read {
namespace {

constexpr int kMaxDepth = 8;
constexpr int kMaxEntries = 20000;

// Folders that hold what a build made or installed, not the project's sources.
bool skipped(const io::Filesystem& fs, const std::string& path, std::string_view name) {
  static constexpr std::array<std::string_view, 6> kNames = {"build",       "build-kiln",   "dist",
                                                             "__pycache__", "node_modules", "site-packages"};
  for (auto n : kNames)
    if (name == n) return true;
  return name.front() == '.' || core::ends_with(name, ".egg-info") || fs.exists(path + "/pyvenv.cfg");
}

struct Walk {
  const io::Filesystem& fs;
  const std::string& root;
  const std::function<bool(const std::string&, const std::string&)>& visit;
  int entries = 0;
  bool complete = true, stopped = false;

  void dir(const std::string& at, int depth) {
    for (const auto& name : fs.list(at)) {
      if (stopped) return;
      if (++entries > kMaxEntries) {
        complete = false;
        stopped = true;
        return;
      }
      const std::string path = at + "/" + name;
      if (fs.is_directory(path)) {
        if (fs.is_symlink(path) || skipped(fs, path, name)) continue;
        if (depth + 1 > kMaxDepth) {
          complete = false;
          continue;
        }
        dir(path, depth + 1);
        continue;
      }
      if (!visit(path.substr(root.size() + 1), path)) stopped = true;
    }
  }
};

}  // namespace

bool walk_project_files(const io::Filesystem& fs, const std::string& project_dir,
                        const std::function<bool(const std::string& relative, const std::string& path)>& visit) {
  Walk w{fs, project_dir, visit};
  w.dir(project_dir, 0);
  return w.complete;
}

}  // namespace kiln::read
