#include "read/gitmodules.hpp"

#include "core/text.hpp"
#include <sstream>

namespace kiln::read {
namespace {

constexpr size_t kMaxSubmodules = 1000;  // each one is a folder listed: a bound on what a forged file costs

bool inside_project(const std::string& path) {
  if (path.empty() || path.front() == '/') return false;
  std::istringstream parts(path);
  std::string part;
  while (std::getline(parts, part, '/'))
    if (part == "..") return false;
  return true;
}

}  // namespace

std::vector<std::string> parse_gitmodules(std::string_view text) {
  std::vector<std::string> paths;
  std::istringstream in{std::string(text)};
  std::string line;
  while (std::getline(in, line)) {
    std::string t = core::trim(line);
    if (t.rfind("path", 0) != 0) continue;
    std::string rest = core::trim(std::string_view(t).substr(4));
    if (rest.empty() || rest.front() != '=') continue;
    std::string path = core::trim(std::string_view(rest).substr(1));
    if (path.size() >= 2 && path.front() == '"' && path.back() == '"') path = path.substr(1, path.size() - 2);
    while (path.size() > 1 && path.back() == '/') path.pop_back();
    if (path.rfind("./", 0) == 0) path = path.substr(2);
    if (inside_project(path)) paths.push_back(path);
    if (paths.size() >= kMaxSubmodules) break;
  }
  return paths;
}

std::vector<std::string> empty_submodules(const io::Filesystem& fs, const std::string& project_dir) {
  const std::string file = project_dir + "/.gitmodules";
  if (io::read_refusal(fs, file, kGitmodulesMaxBytes)) return {};
  const auto text = fs.read(file);
  if (!text) return {};
  std::vector<std::string> empty;
  for (const auto& path : parse_gitmodules(*text)) {
    const std::string dir = project_dir + "/" + path;
    if (!fs.exists(dir) || (fs.is_directory(dir) && fs.list(dir).empty())) empty.push_back(path);
  }
  return empty;
}

}  // namespace kiln::read
