#include "probe/cmake_cache.hpp"
#include "core/text.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <set>
#include <sstream>

#include "probe/lib_load.hpp"
#include "probe/libraries.hpp"
#include "probe/version_text.hpp"

namespace kiln::probe {
namespace {

using core::ends_with;

bool looks_like_library_entry(const CacheEntry& e) {
  return e.type == "FILEPATH" || ends_with(e.name, "_LIBRARY") || ends_with(e.name, "_LIBRARIES") ||
         ends_with(e.name, "_LIBRARY_PATH") || ends_with(e.name, "_LIB");
}

bool is_shared_library(const std::string& p) {
  const std::string name = core::base_name(p);
  return name.find(".so") != std::string::npos && name.rfind("lib", 0) == 0;
}

}  // namespace

bool cmake_true(const std::string& v) {
  const std::string u = core::to_upper(trim(v));
  return u == "ON" || u == "1" || u == "TRUE" || u == "YES" || u == "Y";
}

bool cmake_notfound(const std::string& v) {
  const std::string u = core::to_upper(trim(v));
  return u == "NOTFOUND" || ends_with(u, "-NOTFOUND");
}

const CacheEntry* CmakeCacheAudit::find(const std::string& name) const {
  for (const auto& e : entries)
    if (e.name == name) return &e;
  return nullptr;
}

std::vector<CacheEntry> parse_cmake_cache(const std::string& text) {
  std::vector<CacheEntry> out;
  std::istringstream in(text);
  std::string line;
  int n = 0;
  while (std::getline(in, line)) {
    ++n;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty() || line[0] == '#' || line.rfind("//", 0) == 0) continue;
    CacheEntry e;
    e.line = n;
    size_t colon;
    if (line[0] == '"') {  // "NAME WITH SPACES":TYPE=VALUE
      auto close = line.find('"', 1);
      if (close == std::string::npos) continue;
      e.name = line.substr(1, close - 1);
      colon = close + 1;
      if (colon >= line.size() || line[colon] != ':') continue;
    } else {
      colon = line.find(':');
      if (colon == std::string::npos) continue;
      e.name = line.substr(0, colon);
    }
    auto eq = line.find('=', colon);
    if (eq == std::string::npos) continue;
    e.type = line.substr(colon + 1, eq - colon - 1);
    e.value = line.substr(eq + 1);
    out.push_back(std::move(e));
  }
  return out;
}

namespace {

// Features: every USE_X entry, with the library entries that belong to it (data/libraries.toml's
// cmake_vars, plus the X_LIBRARY naming convention). Returns the names of those library entries.
std::set<std::string> audit_features(CmakeCacheAudit& a) {
  std::set<std::string> feature_libs;
  for (const auto& e : a.entries) {
    if (e.name.rfind("USE_", 0) != 0 || e.name.size() <= 4) continue;
    CacheFeature f;
    f.flag = e.name;
    f.on = cmake_true(e.value);
    const std::string x = e.name.substr(4);
    std::vector<std::string> names = {x + "_LIBRARY", x + "_LIBRARIES", x + "_LIBRARY_PATH", x + "_LIB"};
    for (const auto& spec : library_specs())
      if (spec.use_flag == e.name) names.insert(names.end(), spec.cmake_vars.begin(), spec.cmake_vars.end());
    std::sort(names.begin(), names.end());
    names.erase(std::unique(names.begin(), names.end()), names.end());
    for (const auto& n : names)
      if (auto* le = a.find(n)) {
        feature_libs.insert(n);
        if (cmake_notfound(le->value)) f.notfound.push_back(n);
      }
    if (f.on && !f.notfound.empty()) {
      std::string which;
      for (const auto& n : f.notfound) which += (which.empty() ? "" : ", ") + n + "=" + a.find(n)->value;
      const LibrarySpec* spec = nullptr;
      for (const auto& sp : library_specs())
        if (sp.use_flag == e.name) spec = &sp;
      a.findings.push_back(
          {Severity::error, "cmake-cache", "cmake-cache.feature-library-notfound",
           fmt::format("{}={} (line {}) but {}: the build compiles the feature from its headers and the "
                       "program fails when it needs the library.",
                       e.name, e.value, e.line, which),
           spec ? fmt::format("{}; or reconfigure with {}", spec->install, spec->disable)
                : fmt::format("install the library, or reconfigure with -D{}=OFF", e.name)});
    }
    a.features.push_back(std::move(f));
  }
  return feature_libs;
}

// Recorded libraries: do they still exist, and do the shared ones load?
void audit_libraries(const io::Seams& s, const std::string& self_exe, const std::set<std::string>& feature_libs,
                     CmakeCacheAudit& a) {
  const std::string& file = a.path;
  std::vector<size_t> to_load;
  for (const auto& e : a.entries) {
    if (!looks_like_library_entry(e) || cmake_notfound(e.value)) continue;
    std::istringstream parts(e.value);
    for (std::string p; std::getline(parts, p, ';');) {
      p = trim(p);
      if (p.empty() || p[0] != '/') continue;  // -lfoo, imported targets, generator expressions
      if (!is_shared_library(p) && !ends_with(p, ".a")) continue;
      CacheLibrary l;
      l.entry = e.name;
      l.path = p;
      l.exists = s.fs.exists(p);
      if (!l.exists)
        a.findings.push_back(
            {feature_libs.count(e.name) ? Severity::error : Severity::warning, "cmake-cache",
             "cmake-cache.library-missing",
             fmt::format("{} (line {}) records {}, which no longer exists; the next build will fail to "
                         "link or the program to load.",
                         e.name, e.line, p),
             "reinstall the library, or reconfigure: rm " + file + " and run cmake again"});
      else if (is_shared_library(p))
        to_load.push_back(a.libraries.size());
      a.libraries.push_back(l);
    }
  }
  if (!self_exe.empty() && !to_load.empty()) {
    std::vector<std::string> paths;
    for (auto i : to_load) paths.push_back(a.libraries[i].path);
    auto checks = check_loads(s.proc, self_exe, paths);
    for (size_t k = 0; k < to_load.size() && k < checks.size(); ++k) {
      auto& l = a.libraries[to_load[k]];
      l.load_checked = checks[k].checked;
      l.loads = checks[k].loaded;
      l.load_error = checks[k].error;
      if (l.load_checked && !l.loads)
        a.findings.push_back(
            {Severity::error, "cmake-cache", "cmake-cache.library-load-fails",
             fmt::format("{} records {}, which exists but does not load: {}", l.entry, l.path, l.load_error),
             "install the library's missing dependencies (ldd " + l.path + "), or reconfigure without it"});
    }
  }
}

// Where the cache was made and from which source, against where it is now: both are paths CMake
// checks before it reads anything else, so either one stops a configure.
void audit_home(const io::Seams& s, CmakeCacheAudit& a) {
  const std::string dir =
      a.path.substr(0, a.path.find_last_of('/') == std::string::npos ? 0 : a.path.find_last_of('/'));
  a.created_in = cache_created_elsewhere(s.fs, a.entries, dir.empty() ? "." : dir);
  if (!a.created_in.empty())
    a.findings.push_back(
        {Severity::error, "cmake-cache", "cmake-cache.moved",
         fmt::format("The cache was created in {}, not in {} where it is now (the build folder was moved or copied), "
                     "so CMake refuses it (\"CMakeCache.txt directory ... is different than the directory ... where "
                     "CMakeCache.txt was created\").",
                     a.created_in, dir),
         fmt::format("rm {} and configure again (kiln build does this itself)", a.path)});
  if (!a.source_dir.empty() && !s.fs.exists(a.source_dir + "/CMakeLists.txt"))
    a.findings.push_back(
        {Severity::error, "cmake-cache", "cmake-cache.source-missing",
         fmt::format("The cache was configured from the source {}, which has no CMakeLists.txt any more (moved or "
                     "removed), so this build folder cannot be regenerated.",
                     a.source_dir),
         "configure the source where it is now into a fresh build folder"});
}

// What the build was configured with: compilers that still exist, a build type, a launcher, archs.
void audit_configuration(const io::Seams& s, CmakeCacheAudit& a) {
  for (const auto* c : {&a.c_compiler, &a.cxx_compiler, &a.cuda_compiler, &a.cuda_host_compiler})
    if (!c->empty() && (*c)[0] == '/' && !s.fs.exists(*c))
      a.findings.push_back(
          {Severity::error, "cmake-cache", "cmake-cache.compiler-missing",
           fmt::format("The cache records the compiler {}, which no longer exists.", *c),
           "reconfigure in a fresh build folder (rm -rf the build folder's CMakeCache.txt and CMakeFiles)"});
  if (a.build_type.empty() && a.generator.find("Multi-Config") == std::string::npos &&
      a.generator.find("Visual Studio") == std::string::npos)
    a.findings.push_back({Severity::warning, "cmake-cache", "cmake-cache.no-build-type",
                          "CMAKE_BUILD_TYPE is empty, so CMake compiles without optimization flags.",
                          "reconfigure with -DCMAKE_BUILD_TYPE=Release"});
  if (a.cxx_launcher.find("ccache") == std::string::npos && a.cuda_launcher.find("ccache") == std::string::npos)
    a.findings.push_back(
        {Severity::note, "cmake-cache", "cmake-cache.no-ccache",
         "No compiler launcher is set, so rebuilds after a clean compile everything again.",
         "reconfigure with -DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_CUDA_COMPILER_LAUNCHER=ccache"});
  const bool any_cuda = !a.cuda_compiler.empty();
  if (any_cuda && a.cuda_architectures.empty() && a.torch_cuda_arch_list.empty())
    a.findings.push_back({Severity::note, "cmake-cache", "cmake-cache.no-arch-list",
                          "The cache records no CMAKE_CUDA_ARCHITECTURES or TORCH_CUDA_ARCH_LIST, so the architectures "
                          "are whatever the build's defaults chose.",
                          "kiln plan --gpu <your GPUs> to choose them explicitly"});
}

}  // namespace

std::string cache_created_elsewhere(const io::Filesystem& fs, const std::vector<CacheEntry>& entries,
                                    const std::string& dir) {
  for (const auto& e : entries) {
    if (e.name != "CMAKE_CACHEFILE_DIR") continue;
    const std::string made = core::without_trailing_slashes(e.value), here = core::without_trailing_slashes(dir);
    return made.empty() || fs.same_file(made, here) ? "" : made;
  }
  return "";
}

tl::expected<CmakeCacheAudit, std::string> audit_cmake_cache(const io::Seams& s, const std::string& path,
                                                             const std::string& self_exe) {
  // A build folder stands for the cache inside it.
  const std::string file = s.fs.is_directory(path) ? path + (path.back() == '/' ? "" : "/") + "CMakeCache.txt" : path;
  auto text = s.fs.read(file);
  if (!text)
    return tl::unexpected(file + (s.fs.exists(file) ? ": cannot read the file" : ": no such file") +
                          " (pass the CMakeCache.txt of a configured build, or its folder)");
  CmakeCacheAudit a;
  a.path = file;
  a.entries = parse_cmake_cache(*text);
  if (a.entries.empty() || (!a.find("CMAKE_CACHEFILE_DIR") && !a.find("CMAKE_COMMAND") && !a.find("CMAKE_GENERATOR")))
    return tl::unexpected(file +
                          ": not a CMakeCache.txt (no CMAKE_COMMAND, CMAKE_GENERATOR or CMAKE_CACHEFILE_DIR entry)");
  auto val = [&](const char* n) {
    auto* e = a.find(n);
    return e ? e->value : std::string();
  };
  a.build_type = val("CMAKE_BUILD_TYPE");
  a.generator = val("CMAKE_GENERATOR");
  a.cuda_architectures = val("CMAKE_CUDA_ARCHITECTURES");
  a.torch_cuda_arch_list = val("TORCH_CUDA_ARCH_LIST");
  a.c_compiler = val("CMAKE_C_COMPILER");
  a.cxx_compiler = val("CMAKE_CXX_COMPILER");
  a.cuda_compiler = val("CMAKE_CUDA_COMPILER");
  if (a.cuda_compiler.empty()) a.cuda_compiler = val("CUDA_NVCC_EXECUTABLE");
  a.cuda_host_compiler = val("CMAKE_CUDA_HOST_COMPILER");
  a.cxx_launcher = val("CMAKE_CXX_COMPILER_LAUNCHER");
  a.cuda_launcher = val("CMAKE_CUDA_COMPILER_LAUNCHER");
  a.source_dir = val("CMAKE_HOME_DIRECTORY");

  const auto feature_libs = audit_features(a);
  audit_libraries(s, self_exe, feature_libs, a);
  audit_home(s, a);
  audit_configuration(s, a);
  return a;
}

}  // namespace kiln::probe
