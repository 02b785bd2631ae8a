#include "read/native_sources.hpp"

#include <fmt/format.h>

#include <array>
#include <string_view>

namespace kiln::read {
namespace {

constexpr int kMaxDepth = 8;
constexpr int kMaxEntries = 20000;

bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

// Folders that hold what a build made or installed, not the project's sources.
bool skipped(const io::Filesystem& fs, const std::string& path, std::string_view name) {
  static constexpr std::array<std::string_view, 6> kNames = {"build",       "build-kiln",   "dist",
                                                             "__pycache__", "node_modules", "site-packages"};
  for (auto n : kNames)
    if (name == n) return true;
  return name.front() == '.' || ends_with(name, ".egg-info") || fs.exists(path + "/pyvenv.cfg");
}

struct Walk {
  const io::Filesystem& fs;
  std::string root;
  NativeSources out;
  int entries = 0;

  void visit(const std::string& dir, int depth) {
    for (const auto& name : fs.list(dir)) {
      if (++entries > kMaxEntries) {
        out.truncated = true;
        return;
      }
      const std::string path = dir + "/" + name;
      if (fs.is_directory(path)) {
        if (fs.is_symlink(path) || skipped(fs, path, name)) continue;
        if (depth + 1 > kMaxDepth) {
          out.truncated = true;
          continue;
        }
        visit(path, depth + 1);
        continue;
      }
      const bool cu = ends_with(name, ".cu");
      if (!cu && !ends_with(name, ".cpp") && !ends_with(name, ".cc") && !ends_with(name, ".cxx") &&
          !ends_with(name, ".c"))
        continue;
      ++out.count;
      out.cuda += cu;
      if (out.first.size() < 3) out.first.push_back(path.substr(root.size() + 1));
    }
  }
};

}  // namespace

std::string NativeSources::summary() const {
  std::string names;
  for (const auto& f : first) names += (names.empty() ? "" : ", ") + f;
  if (count > static_cast<int>(first.size())) names += ", ...";
  return fmt::format("{}{} file{} ({}{})", count, truncated ? "+" : "", count == 1 ? "" : "s", names,
                     cuda ? fmt::format("; {} CUDA", cuda) : std::string());
}

NativeSources find_native_sources(const io::Filesystem& fs, const std::string& project_dir) {
  Walk w{fs, project_dir, {}, 0};
  w.visit(project_dir, 0);
  return w.out;
}

}  // namespace kiln::read
