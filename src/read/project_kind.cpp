#include "read/project_kind.hpp"

#include <fmt/format.h>
#include <toml++/toml.h>

#include <algorithm>

#include "core/name_table.hpp"
#include "read/jit_extension.hpp"

namespace kiln::read {

namespace {

// The one spelling of each kind: plan JSON "kind", the plan's text and emitted files.
constexpr core::NameTable<ProjectKind, 4> kKindNames{{{{ProjectKind::cmake, "cmake"},
                                                       {ProjectKind::pytorch, "pytorch"},
                                                       {ProjectKind::extension, "extension"},
                                                       {ProjectKind::unknown, "unknown"}}}};

}  // namespace

std::string to_string(ProjectKind k) { return std::string(kKindNames.name(k, "unknown")); }

std::optional<ProjectKind> project_kind_from(std::string_view s) { return kKindNames.find(s); }

bool builds_with_setuptools(const io::Filesystem& fs, const std::string& dir) {
  auto text = fs.read(dir + "/pyproject.toml");
  if (!text) return true;
  auto parsed = toml::parse(*text);
  if (!parsed) return true;  // pip would refuse it anyway; the torch check stands
  const std::string backend = parsed.table()["build-system"]["build-backend"].value_or(std::string());
  return backend.empty() || backend.rfind("setuptools", 0) == 0;
}

ProjectKind detect_project_kind(const io::Filesystem& fs, const std::string& dir,
                                const tl::expected<SetupPyReading, std::string>* setup) {
  const bool setup_py = fs.exists(dir + "/setup.py");
  const bool cmakelists = fs.exists(dir + "/CMakeLists.txt");
  if (setup_py && cmakelists && fs.is_directory(dir + "/torchgen")) return ProjectKind::pytorch;
  const bool read = setup && setup->has_value();
  if (read && setup_py) {
    // What the build does: extensions made in setup.py or in the project's modules it imports. A
    // setup.py that runs CMake itself (a CMakeExtension) is a pip build too.
    for (const auto& e : (*setup)->extensions)
      if (e.find("CMakeExtension") == std::string::npos || !(*setup)->calls_cmake.empty() || !cmakelists)
        return ProjectKind::extension;
    if (!(*setup)->ops.empty()) return ProjectKind::extension;
  }
  for (const char* f : {"/setup.py", "/pyproject.toml"}) {
    auto text = fs.read(dir + f);
    if (!text) continue;
    if (!(read && std::string(f) == "/setup.py") &&
        (text->find("cpp_extension") != std::string::npos || text->find("CUDAExtension") != std::string::npos))
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

KindReading read_project_kind(const io::Seams& s, const std::string& dir, const std::string& python) {
  KindReading r;
  const std::string py_name = !python.empty() ? python : s.env.get("PYTHON").value_or("python3");
  const auto py = io::which(s, py_name);
  r.setup = tl::unexpected(py_name + " not found");
  if (py && s.fs.exists(dir + "/setup.py")) r.setup = read_setup_py_ast(s.proc, *py, dir);
  r.kind = detect_project_kind(s.fs, dir, &r.setup);
  return r;
}

namespace {

// The subfolders that are projects themselves (torch-ngp's gridencoder/, raymarching/, ... each
// with its setup.py and none at the top): said with the command that builds one.
std::string subprojects(const io::Filesystem& fs, const std::string& dir) {
  std::vector<std::string> names = fs.list(dir);
  std::sort(names.begin(), names.end());
  std::vector<std::string> found;
  for (const auto& n : names) {
    if (n.empty() || n[0] == '.') continue;
    const std::string sub = dir + "/" + n;
    for (const char* f : {"setup.py", "CMakeLists.txt", "pyproject.toml"})
      if (fs.exists(sub + "/" + f)) {
        found.push_back(n + "/" + f);
        break;
      }
  }
  if (found.empty()) return {};
  std::string out = "; its subfolders are projects: ";
  const size_t shown = std::min<size_t>(found.size(), 6);
  for (size_t i = 0; i < shown; ++i) out += (i ? ", " : "") + found[i];
  if (found.size() > shown) out += fmt::format(" and {} more", found.size() - shown);
  const std::string first = found[0].substr(0, found[0].find('/'));
  return out + fmt::format(" (build one with kiln build {}/{})", dir, first);
}

}  // namespace

std::string describe_folder(const io::Filesystem& fs, const std::string& dir,
                            const tl::expected<SetupPyReading, std::string>* setup) {
  std::vector<std::string> found;
  if (fs.exists(dir + "/setup.py")) {
    if (setup && setup->has_value())
      found.push_back(fmt::format(
          "setup.py, which builds no extension (read with Python's ast: no Extension call or op "
          "builder in setup.py{})",
          (*setup)->files.size() > 1 ? fmt::format(" or the {} project modules it imports", (*setup)->files.size() - 1)
                                     : std::string()));
    else
      found.push_back("setup.py, which names no torch extension" +
                      (setup ? " (read as text: " + setup->error() + ")" : std::string()));
  }
  if (fs.exists(dir + "/pyproject.toml")) found.push_back("pyproject.toml, whose [build-system] does not need torch");
  for (const char* f : {"setup.cfg", "Makefile", "meson.build", "BUILD.bazel"})
    if (fs.exists(dir + "/" + f)) found.push_back(f);
  // A project that compiles at import has nothing to build ahead of time: say where and how.
  std::string jit;
  if (const auto site = find_jit_extension(fs, dir))
    jit = fmt::format(
        "; it compiles its C++/CUDA code when first imported (torch.utils.cpp_extension's loader at {}), not when "
        "installed, so there is nothing to build ahead of time: that first import compiles for TORCH_CUDA_ARCH_LIST "
        "(kiln plan --gpu NAME prints the list to set) with MAX_JOBS jobs, into TORCH_EXTENSIONS_DIR",
        *site);
  if (found.empty())
    return "nothing kiln can build (no CMakeLists.txt, setup.py or pyproject.toml)" + jit + subprojects(fs, dir);
  std::string out = "found ";
  for (size_t i = 0; i < found.size(); ++i) out += (i ? ", " : "") + found[i];
  return out + " but no CMakeLists.txt" + jit + subprojects(fs, dir);
}

}  // namespace kiln::read
