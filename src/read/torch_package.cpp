#include "read/torch_package.hpp"
#include "core/text.hpp"

#include <fmt/format.h>

#include "core/data.hpp"
#include "io/isolated_python.hpp"
#include "read/cmake_lang.hpp"

namespace kiln::read {
namespace {

bool has_config(const io::Filesystem& fs, const std::string& dir) {
  return fs.exists(dir + "/TorchConfig.cmake") || fs.exists(dir + "/torch-config.cmake");
}

using core::trim;

bool scan(const io::Filesystem& fs, const std::string& dir, const std::string& rel, int depth) {
  auto text = fs.read(dir + "/" + rel);
  if (!text || depth > 4) return false;
  auto cmds = cmake::parse(*text);
  if (!cmds) return text->find("find_package(Torch") != std::string::npos;  // unparsable: the plain text decides
  for (const auto& c : *cmds) {
    if (c.name == "find_package" && !c.args.empty() && c.args[0].text == "Torch") return true;
    if (c.name == "include" && !c.args.empty()) {
      std::string p = c.args[0].text;
      for (const char* v : {"${CMAKE_CURRENT_SOURCE_DIR}/", "${PROJECT_SOURCE_DIR}/", "${CMAKE_SOURCE_DIR}/"})
        if (p.rfind(v, 0) == 0) p = p.substr(std::string(v).size());
      if (p.find(".cmake") != std::string::npos && p.find('$') == std::string::npos && p[0] != '/' &&
          scan(fs, dir, p, depth + 1))
        return true;
    }
  }
  return false;
}

}  // namespace

bool uses_torch_package(const io::Filesystem& fs, const std::string& project_dir) {
  return scan(fs, project_dir, "CMakeLists.txt", 0);
}

tl::expected<TorchPackage, std::string> locate_torch_package(const io::Seams& s, const std::string& python,
                                                             const std::vector<std::string>& cmake_defines) {
  for (const auto& d : cmake_defines) {
    auto eq = d.find('=');
    std::string key = d.substr(0, eq);
    if (auto colon = key.find(':'); colon != std::string::npos) key = key.substr(0, colon);
    if (key == "Torch_DIR" && eq != std::string::npos) {
      const std::string dir = d.substr(eq + 1);
      if (!has_config(s.fs, dir))
        return tl::unexpected(fmt::format("-D Torch_DIR={}: no TorchConfig.cmake there", dir));
      return TorchPackage{dir, "-D Torch_DIR"};
    }
  }
  if (auto v = s.env.get("Torch_DIR"); v && !v->empty()) {
    if (!has_config(s.fs, *v)) return tl::unexpected(fmt::format("Torch_DIR={}: no TorchConfig.cmake there", *v));
    return TorchPackage{*v, "Torch_DIR"};
  }
  if (auto v = s.env.get("LIBTORCH"); v && !v->empty()) {
    const std::string dir = *v + "/share/cmake/Torch";
    if (!has_config(s.fs, dir))
      return tl::unexpected(fmt::format("LIBTORCH={}: no share/cmake/Torch/TorchConfig.cmake there", *v));
    return TorchPackage{dir, "LIBTORCH"};
  }
  if (auto v = s.env.get("CMAKE_PREFIX_PATH"); v && !v->empty()) {
    size_t start = 0;
    while (start <= v->size()) {
      size_t end = v->find_first_of(":;", start);
      const std::string p = v->substr(start, end == std::string::npos ? std::string::npos : end - start);
      // CMake's config-mode search under a prefix: <prefix>/share/cmake/Torch, <prefix>/Torch, <prefix>.
      for (const std::string& cand : {p + "/share/cmake/Torch", p + "/Torch", p})
        if (!p.empty() && has_config(s.fs, cand)) return TorchPackage{cand, "CMAKE_PREFIX_PATH"};
      if (end == std::string::npos) break;
      start = end + 1;
    }
  }
  const std::string py = python.empty() ? s.env.get("PYTHON").value_or("python3") : python;
  auto exe = io::which(s, py);
  if (!exe)
    return tl::unexpected(
        fmt::format("find_package(Torch): no Torch_DIR, LIBTORCH or CMAKE_PREFIX_PATH, and {} is not on "
                    "PATH to find torch; set Torch_DIR to the folder holding TorchConfig.cmake",
                    py));
  const std::string torch = find_torch_package(s, *exe);
  if (torch.empty())
    return tl::unexpected(
        fmt::format("find_package(Torch): {} finds no torch package and neither Torch_DIR, LIBTORCH nor "
                    "CMAKE_PREFIX_PATH names one; install torch or set Torch_DIR",
                    *exe));
  const std::string dir = torch + "/share/cmake/Torch";
  if (!has_config(s.fs, dir))
    return tl::unexpected(
        fmt::format("find_package(Torch): {}'s torch ({}) has no share/cmake/Torch/TorchConfig.cmake (a "
                    "distribution's torch, such as Debian's python3-torch, ships none); pip install torch there, "
                    "pass --python with an interpreter whose torch has it, or set Torch_DIR or LIBTORCH",
                    *exe, torch));
  return TorchPackage{dir, *exe + " (importlib.util.find_spec)"};
}

}  // namespace kiln::read
