#include "cli/project_dir.hpp"

#include <filesystem>

#include "cli/command.hpp"

namespace kiln::cli {

std::string resolve_project_dir(const std::string& dir, const io::Seams& s) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!dir.empty()) {
    auto abs = fs::absolute(dir, ec).lexically_normal().string();
    if (!abs.empty() && abs.size() > 1 && abs.back() == '/') abs.pop_back();
    if (!s.fs.is_directory(abs)) throw UsageError("'" + dir + "' is not a directory");
    return abs;
  }
  std::vector<std::string> candidates = {fs::current_path(ec).string() + "/examples/minitorch"};
  auto exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) candidates.push_back((exe.parent_path() / ".." / "examples" / "minitorch").lexically_normal().string());
#ifdef KILN_SOURCE_DIR
  candidates.push_back(std::string(KILN_SOURCE_DIR) + "/examples/minitorch");
#endif
  for (const auto& c : candidates)
    if (s.fs.exists(c + "/CMakeLists.txt")) return c;
  throw UsageError("no project directory given and the bundled example (examples/minitorch) was not found; "
                   "pass the project directory");
}

}  // namespace kiln::cli
