#include "read/jit_extension.hpp"

#include <cctype>

#include "core/text.hpp"
#include "read/project_files.hpp"

namespace kiln::read {
namespace {

constexpr std::uint64_t kMaxPyBytes = 1 << 20;
constexpr int kMaxPyFiles = 2000;

bool ident(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// Whether `line` calls cpp_extension's loader at `at` (where "load" begins).
bool loader_call(std::string_view line, size_t at, bool imports_load) {
  if (at >= 4 && line.substr(at - 4, 4) == "def ") return false;
  if (at == 0 || !(ident(line[at - 1]) || line[at - 1] == '.')) return imports_load;  // bare load(...)
  if (line[at - 1] != '.') return false;                                              // reload(, _load(
  return line.substr(0, at).ends_with("cpp_extension.");  // cpp_extension.load(, not json.load(
}

}  // namespace

int jit_call_line(std::string_view text) {
  if (text.find("cpp_extension") == std::string_view::npos) return 0;
  // `from torch.utils.cpp_extension import load` makes a bare load( the loader.
  const bool imports_load =
      text.find("cpp_extension import") != std::string_view::npos &&
      (text.find("import load") != std::string_view::npos || text.find(", load") != std::string_view::npos ||
       text.find("load,") != std::string_view::npos);
  int number = 0;
  size_t at = 0;
  while (at <= text.size()) {
    size_t end = text.find('\n', at);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(at, end - at);
    ++number;
    at = end + 1;
    const auto hash = line.find('#');
    if (hash != std::string_view::npos) line = line.substr(0, hash);
    for (std::string_view name : {"load_inline(", "load("}) {
      for (size_t p = line.find(name); p != std::string_view::npos; p = line.find(name, p + 1))
        if (loader_call(line, p, imports_load || name == "load_inline(")) return number;
    }
    if (end == text.size()) break;
  }
  return 0;
}

std::optional<std::string> find_jit_extension(const io::Filesystem& fs, const std::string& project_dir) {
  std::optional<std::string> site;
  int files = 0;
  walk_project_files(fs, project_dir, [&](const std::string& relative, const std::string& path) {
    if (!core::ends_with(relative, ".py")) return true;
    if (++files > kMaxPyFiles) return false;
    const auto size = fs.size(path);
    if (size && *size > kMaxPyBytes) return true;
    const auto text = fs.read(path);
    if (!text) return true;
    if (const int line = jit_call_line(*text)) site = relative + ":" + std::to_string(line);
    return !site;
  });
  return site;
}

}  // namespace kiln::read
