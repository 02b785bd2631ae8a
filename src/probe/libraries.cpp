#include "probe/libraries.hpp"

#include <fmt/format.h>

#include "core/data_toml.hpp"
#include "binary/system_dirs.hpp"
#include "probe/lib_load.hpp"

namespace kiln::probe {
namespace {

std::vector<std::string> strings(const toml::node_view<const toml::node>& n) {
  std::vector<std::string> out;
  if (auto* a = n.as_array())
    for (const auto& e : *a)
      if (auto s = e.value<std::string>()) out.push_back(*s);
  return out;
}

struct Dir {
  std::string path, how;
};

std::string subst_cuda(const std::string& p, const CudaToolkit& tk) {
  if (p.rfind("<cuda>", 0) != 0) return p;
  return tk.found ? tk.root + p.substr(6) : "";
}

std::optional<Version> header_version(const LibrarySpec& spec, const std::string& text) {
  if (!spec.version_string_macro.empty()) {
    if (auto v = header_define(text, spec.version_string_macro)) return find_version(*v);
    return std::nullopt;
  }
  for (const auto& set : spec.version_macros) {
    Version v;
    for (const auto& m : set) {
      auto n = header_define_int(text, m);
      if (!n) break;
      v.parts.push_back(static_cast<int>(*n));
    }
    if (v.parts.size() != set.size() || v.empty()) continue;
    // CUPTI from CUDA 13 on: CUPTI_API_VERSION is xxyyzz (CUDA major, minor, CUPTI's own update), as
    // cupti_version.h says; before, a plain API number (18, 28), kept as it is.
    if (spec.version_encoding == "xxyyzz" && v.parts.size() == 1 && v.parts[0] >= 10000)
      v.parts = {v.parts[0] / 10000, v.parts[0] / 100 % 100, v.parts[0] % 100};
    return v;
  }
  return std::nullopt;
}

}  // namespace

const std::vector<LibrarySpec>& library_specs() {
  static const std::vector<LibrarySpec> specs = [] {
    std::vector<LibrarySpec> out;
    auto t = data::load_toml("libraries.toml");
    if (auto* arr = t["library"].as_array())
      for (const auto& node : *arr) {
        const auto* e = node.as_table();
        if (!e) continue;
        toml::node_view<const toml::node> v{e};
        LibrarySpec s;
        s.key = v["key"].value_or(std::string());
        s.name = v["name"].value_or(std::string());
        s.headers = strings(v["headers"]);
        if (auto* sets = v["version_macros"].as_array())
          for (const auto& set : *sets) s.version_macros.push_back(strings(toml::node_view<const toml::node>{set}));
        s.version_string_macro = v["version_string_macro"].value_or(std::string());
        s.version_encoding = v["version_encoding"].value_or(std::string());
        s.library = v["library"].value_or(std::string());
        s.env_roots = strings(v["env_roots"]);
        s.extra_include = strings(v["extra_include"]);
        s.extra_lib = strings(v["extra_lib"]);
        s.cmake_vars = strings(v["cmake_vars"]);
        s.pip_dir = v["pip_dir"].value_or(std::string());
        s.use_flag = v["use_flag"].value_or(std::string());
        s.disable = v["disable"].value_or(std::string());
        s.install = v["install"].value_or(std::string());
        s.blas = v["blas"].value_or(false);
        s.file_version_is_release = v["file_version_is_release"].value_or(false);
        out.push_back(std::move(s));
      }
    return out;
  }();
  return specs;
}

const LibrarySpec* find_library_spec(const std::string& key) {
  for (const auto& s : library_specs())
    if (s.key == key) return &s;
  return nullptr;
}

std::optional<Version> version_from_file_name(const std::string& file, const std::string& base) {
  if (file.size() <= base.size() + 1 || file.rfind(base + ".", 0) != 0) return std::nullopt;
  return parse_version(file.substr(base.size() + 1));
}

namespace {

// Where to look for one library's headers and files, in search order: its own *_ROOT variables,
// the CUDA toolkit, known locations, pip wheels, LD_LIBRARY_PATH, then the system folders.
void search_dirs(const io::Seams& s, const CudaToolkit& tk, const LibraryOptions& o, const LibrarySpec& spec,
                 std::vector<Dir>& inc, std::vector<Dir>& lib) {
  for (const auto& var : spec.env_roots)
    if (auto root = s.env.get(var); root && !root->empty()) {
      inc.push_back({*root + "/include", var});
      lib.push_back({*root + "/lib64", var});
      lib.push_back({*root + "/lib", var});
    }
  if (tk.found) {
    if (!tk.include_dir.empty()) inc.push_back({tk.include_dir, "CUDA toolkit"});
    for (const auto& d : tk.lib_dirs) lib.push_back({d, "CUDA toolkit"});
  }
  for (const auto& d : spec.extra_include)
    if (auto p = subst_cuda(d, tk); !p.empty()) inc.push_back({d[0] == '/' ? o.sysroot + p : p, "known location"});
  for (const auto& d : spec.extra_lib)
    if (auto p = subst_cuda(d, tk); !p.empty()) lib.push_back({d[0] == '/' ? o.sysroot + p : p, "known location"});
  if (!spec.pip_dir.empty())
    for (const auto& sp : o.site_packages) {
      inc.push_back({sp + "/nvidia/" + spec.pip_dir + "/include", "pip wheel"});
      lib.push_back({sp + "/nvidia/" + spec.pip_dir + "/lib", "pip wheel"});
    }
  if (auto ld = s.env.get("LD_LIBRARY_PATH"))
    for (size_t a = 0; a < ld->size();) {
      size_t b = ld->find(':', a);
      if (b == std::string::npos) b = ld->size();
      if (b > a) lib.push_back({ld->substr(a, b - a), "LD_LIBRARY_PATH"});
      a = b + 1;
    }
  for (const char* d : {"/usr/include", "/usr/include/x86_64-linux-gnu", "/usr/local/include"})
    inc.push_back({o.sysroot + d, "system"});
  for (const auto& d : binary::doctor_library_dirs()) lib.push_back({o.sysroot + d, "system"});
}

void find_header(const io::Seams& s, const LibrarySpec& spec, const std::vector<Dir>& inc, LibraryReport& r) {
  for (const auto& d : inc) {
    for (const auto& h : spec.headers)
      if (s.fs.exists(d.path + "/" + h)) {
        r.header = d.path + "/" + h;
        r.header_how = d.how;
        if (auto text = s.fs.read(r.header)) r.header_version = header_version(spec, *text);
        break;
      }
    if (!r.header.empty()) break;
  }
}

// The first folder holding the library is the one found; later ones are other copies.
void find_library(const io::Seams& s, const LibrarySpec& spec, const std::vector<Dir>& lib, LibraryReport& r,
                  Findings& findings) {
  for (const auto& d : lib) {
    std::vector<std::string> names;
    for (const auto& n : s.fs.list(d.path))
      if (n == spec.library || n.rfind(spec.library + ".", 0) == 0) names.push_back(n);
    if (names.empty()) continue;
    if (!r.library.empty()) {  // a later folder: another copy, which another search order would pick
      LibraryReport::Copy c{d.path, d.how, std::nullopt};
      for (const auto& n : names)
        if (auto v = version_from_file_name(n, spec.library);
            v && (!c.file_version || v->parts.size() > c.file_version->parts.size()))
          c.file_version = v;
      bool seen = false;
      for (const auto& o : r.other_copies) seen |= o.path == c.path;
      if (!seen && d.path != r.library.substr(0, r.library.find_last_of('/'))) r.other_copies.push_back(c);
      continue;
    }
    r.library_files = names;
    r.library_how = d.how;
    // The unversioned name is what the linker and CMake's find_library take; without it, the
    // runtime name with the fewest parts (the SONAME), which is what programs load.
    std::string pick;
    for (const auto& n : names)
      if (n == spec.library) pick = n;
    if (pick.empty()) {
      pick = names[0];
      for (const auto& n : names)
        if (n.size() < pick.size()) pick = n;
      // pip wheels ship runtime names only, for torch to load; that is their design, not a fault.
      if (d.how != "pip wheel")
        findings.push_back(
            {Severity::note, "libraries", "libraries.no-dev-link",
             fmt::format("{} has {} but no {} link, so the linker and CMake's find_library will not find it.",
                         spec.name, d.path + "/" + pick, spec.library),
             fmt::format("install the -dev package, or ln -s {} {}/{}", pick, d.path, spec.library)});
    }
    r.library = d.path + "/" + pick;
    for (const auto& n : names)
      if (auto v = version_from_file_name(n, spec.library);
          v && (!r.file_version || v->parts.size() > r.file_version->parts.size()))
        r.file_version = v;
  }
}

// Whether each library found loads, asked of the host's own loader in a child.
void check_library_loads(const io::Seams& s, const LibraryOptions& o, std::vector<LibraryReport>& out,
                         const std::vector<size_t>& to_load) {
  std::vector<std::string> paths;
  for (auto i : to_load) paths.push_back(out[i].library);
  auto checks = check_loads(s.proc, o.self_exe, paths);
  for (size_t k = 0; k < to_load.size() && k < checks.size(); ++k) {
    auto& r = out[to_load[k]];
    r.load_checked = checks[k].checked;
    r.loads = checks[k].loaded;
    r.load_error = checks[k].checked ? checks[k].error : "not checked: " + checks[k].error;
    r.soname = checks[k].soname;
    if (r.soname.empty() && !checks[k].elf_error.empty() && r.load_error.empty()) r.load_error = checks[k].elf_error;
  }
}

// What is wrong with one library: it does not load, half of it is missing, two releases, or a
// header of one release beside the file of another.
void library_findings(const LibrarySpec& spec, const LibraryReport& r, Findings& findings) {
  if (!r.library.empty() && r.load_checked && !r.loads) {
    findings.push_back(
        {r.header.empty() ? Severity::warning : Severity::error, "libraries", "libraries.load-fails",
         fmt::format("{} is present at {} but does not load ({}){}", spec.name, r.library, r.load_error,
                     r.header.empty() ? "." : ", so a build that enables it from the header will fail at run time."),
         fmt::format("{}; or build without it: {}", spec.install, spec.disable)});
  } else if (!r.header.empty() && r.library.empty()) {
    findings.push_back({Severity::error, "libraries", "libraries.header-without-library",
                        fmt::format("{} headers are at {} but no {} is installed: CMake will enable {} from the header "
                                    "and the program will fail when it loads the library.",
                                    spec.name, r.header, spec.library, spec.use_flag),
                        fmt::format("{}; or build with {}", spec.install, spec.disable)});
  } else if (r.header.empty() && !r.library.empty()) {
    findings.push_back(
        {Severity::note, "libraries", "libraries.library-without-header",
         fmt::format("{} is installed ({}) but its headers ({}) are not, so a build cannot use it.", spec.name,
                     r.library, spec.headers.empty() ? "" : spec.headers[0]),
         fmt::format("install the development headers if you want {} (see: {})", spec.use_flag, spec.install)});
  }
  // Two releases installed: which one a build gets depends on its search order (pip wheels for
  // torch at run time, CUDNN_ROOT / CMAKE_PREFIX_PATH / system folders for a source build).
  if (spec.file_version_is_release && !r.library.empty()) {
    std::optional<Version> mine = r.file_version;
    if ((!mine || mine->parts.size() < 2) && r.header_how == r.library_how) mine = r.header_version;
    for (const auto& c : r.other_copies)
      if (mine && c.file_version && mine->parts.size() >= 2 && c.file_version->parts.size() >= 2 &&
          (mine->major() != c.file_version->major() || mine->minor() != c.file_version->minor())) {
        findings.push_back(
            {Severity::note, "libraries", "libraries.multiple-copies",
             fmt::format("{} is installed twice: {} {} ({}) and {} {} ({}); torch loads the copy its "
                         "package depends on, a source build links whichever its search finds first.",
                         spec.name, mine->str(), r.library, r.library_how, c.file_version->str(), c.path, c.how),
             fmt::format("choose one explicitly for source builds ({}=<its folder>, or "
                         "CMAKE_PREFIX_PATH), or remove the other",
                         spec.env_roots.empty() ? "CMAKE_PREFIX_PATH" : spec.env_roots[0])});
        break;
      }
  }
  if (spec.file_version_is_release && r.header_version && r.file_version &&
      r.header_version->major() != r.file_version->major())
    findings.push_back({Severity::error, "libraries", "libraries.version-mismatch",
                        fmt::format("{} header {} says {} but the library file is {} ({}): the build compiles against "
                                    "one release and loads another.",
                                    spec.name, r.header, r.header_version->str(), r.file_version->str(), r.library),
                        fmt::format("install matching header and runtime packages ({})", spec.install)});
}

}  // namespace

std::vector<LibraryReport> detect_libraries(const io::Seams& s, const CudaToolkit& tk, const LibraryOptions& o,
                                            Findings& findings) {
  std::vector<LibraryReport> out;
  std::vector<size_t> to_load;
  for (const auto& spec : library_specs()) {
    std::vector<Dir> inc, lib;
    search_dirs(s, tk, o, spec, inc, lib);
    LibraryReport r;
    r.key = spec.key;
    r.name = spec.name;
    find_header(s, spec, inc, r);
    find_library(s, spec, lib, r, findings);
    if (!r.library.empty()) to_load.push_back(out.size());
    out.push_back(std::move(r));
  }
  if (o.check_loads && !to_load.empty()) check_library_loads(s, o, out, to_load);
  bool any_blas = false;
  for (size_t i = 0; i < out.size(); ++i) {
    const auto& spec = library_specs()[i];
    if (spec.blas && out[i].usable()) any_blas = true;
    library_findings(spec, out[i], findings);
  }
  if (!any_blas)
    findings.push_back(
        {Severity::note, "libraries", "libraries.no-blas",
         "Neither MKL nor OpenBLAS loads here, so PyTorch falls back to its slower built-in BLAS (Eigen).",
         "apt-get install libopenblas-dev (or pip install mkl-devel)"});
  return out;
}

}  // namespace kiln::probe
