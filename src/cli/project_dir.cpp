#include "cli/project_dir.hpp"

#include <filesystem>

#include "cli/command.hpp"
#include "read/enclosing_project.hpp"
#include "read/project_kind.hpp"

namespace kiln::cli {

std::string absolute_dir(const std::string& dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  auto abs = fs::absolute(dir, ec).lexically_normal().string();
  if (abs.size() > 1 && abs.back() == '/') abs.pop_back();
  return abs;
}

namespace {

std::string absolute(const std::string& dir) { return absolute_dir(dir); }

// The bundled example: under the current folder, beside the binary (../examples/minitorch from
// build/kiln) or in the source tree kiln was built from.
std::string find_example(const std::string& cwd, const io::Seams& s) {
  namespace fs = std::filesystem;
  std::error_code ec;
  std::vector<std::string> candidates = {cwd + "/examples/minitorch"};
  auto exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) candidates.push_back((exe.parent_path() / ".." / "examples" / "minitorch").lexically_normal().string());
#ifdef KILN_SOURCE_DIR
  candidates.push_back(std::string(KILN_SOURCE_DIR) + "/examples/minitorch");
#endif
  for (const auto& c : candidates)
    if (s.fs.exists(c + "/CMakeLists.txt")) return c;
  return {};
}

// kiln's own checkout (or a copy of it): the bundled example and kiln's own data tables.
bool is_kiln_repository(const std::string& d, const io::Seams& s) {
  return s.fs.exists(d + "/examples/minitorch/CMakeLists.txt") && s.fs.exists(d + "/data/project_knobs.toml");
}

// A project's own build files, refused up front when kiln will not read them whole: a FIFO, a
// link to /dev/zero, a huge file (issue 34, case 6; the reads below would find them "missing").
void check_project_files(const std::string& dir, const io::Seams& s) {
  for (const char* f : {"CMakeLists.txt", "setup.py", "pyproject.toml", "setup.cfg"})
    if (auto why = io::read_refusal(s.fs, dir + "/" + f, io::kProjectFileMaxBytes))
      throw UsageError(*why + "; a project's build files must be regular files: replace it");
}

}  // namespace

ProjectDir resolve_project_dir(const std::string& dir, const io::Seams& s, bool example, std::string cwd) {
  if (!dir.empty()) {
    if (example) throw UsageError("--example builds the bundled example: drop DIR '" + dir + "' or --example");
    auto abs = absolute(dir);
    if (!s.fs.is_directory(abs)) throw UsageError("'" + dir + "' is not a directory");
    check_project_files(abs, s);
    return {abs, "the DIR argument"};
  }
  if (cwd.empty()) {
    std::error_code ec;
    cwd = std::filesystem::current_path(ec).string();
  }
  const bool repo = is_kiln_repository(cwd, s);
  if (example || repo) {
    auto ex = find_example(cwd, s);
    if (ex.empty())
      throw UsageError(
          "the bundled example (examples/minitorch) was not found beside this kiln; pass the project directory");
    return {ex, example ? "the bundled example (--example)"
                        : "the bundled example: run from the kiln repository with no DIR"};
  }
  check_project_files(cwd, s);
  // The same reading as a named DIR (setup.py read with Python's ast), not a search for words.
  auto reading = read::read_project_kind(s, cwd);
  if (reading.kind != read::ProjectKind::unknown) return {cwd, "the current folder (no DIR given)"};
  if (const auto root = read::enclosing_project(s.fs, cwd, false))
    throw UsageError("no DIR given and the current folder " + cwd + " is not a project, but it is inside " + root->dir +
                     " (" + root->why + "): pass that folder");
  throw UsageError("no DIR given and the current folder " + cwd + " is not a project (" +
                   read::describe_folder(s.fs, cwd, &reading.setup) +
                   "): pass the project directory, or --example for the bundled example");
}

}  // namespace kiln::cli
