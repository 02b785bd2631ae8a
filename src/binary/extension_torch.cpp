#include "binary/extension_torch.hpp"

#include <algorithm>
#include <filesystem>

#include <fmt/format.h>

#include "binary/deps.hpp"
#include "binary/elf.hpp"
#include "binary/ld_search.hpp"
#include "core/data.hpp"
#include "core/text.hpp"
#include "io/isolated_python.hpp"

namespace kiln::binary {
namespace {

// A path as the loader would open it from kiln's folder: relative ones against the cwd.
std::string absolute_path(const std::string& path, const io::Filesystem& fs) {
  if (!path.empty() && path[0] == '/') return normalize_path(path);
  std::error_code ec;
  if (dynamic_cast<const io::RealFilesystem*>(&fs)) {
    auto abs = std::filesystem::absolute(path, ec);
    if (!ec) return normalize_path(abs.string());
  }
  return normalize_path("/" + path);  // a fake tree is rooted at /
}

// `key = value` of a pyvenv.cfg.
std::string venv_value(const std::string& cfg, const std::string& key) {
  for (const auto& line : core::split(cfg, '\n')) {
    auto eq = line.find('=');
    if (eq != std::string::npos && core::trim(line.substr(0, eq)) == key) return core::trim(line.substr(eq + 1));
  }
  return "";
}

// "python3.12" from a path's lib/python3.12/ component: the interpreter that owns that site.
std::string versioned_python(const std::string& site) {
  static const std::string kPy = "/python3.";
  auto pos = site.rfind(kPy);
  if (pos == std::string::npos) return "";
  auto end = site.find('/', pos + 1);
  const std::string name = site.substr(pos + 1, end == std::string::npos ? std::string::npos : end - pos - 1);
  return core::parse_int(name.substr(kPy.size() - 1)) ? name : "";
}

}  // namespace

bool python_extension_module(const std::string& path) {
  const std::string name = core::base_name(path);
  return name.find(".cpython-") != std::string::npos || name.find(".abi3.so") != std::string::npos;
}

bool python_extension_module(const std::string& path, const io::Seams& s, const std::string& root) {
  if (python_extension_module(path)) return true;
  const std::string name = core::base_name(path);
  if (name.size() <= 3 || !core::ends_with(name, ".so")) return false;
  const std::string stem = name.substr(0, name.size() - 3);
  if (stem.find('.') != std::string::npos) return false;  // a.b.so: no module name plus a suffix importlib tries
  DepsOptions opt;
  opt.root = root;
  auto blob = LibrarySearch(opt, s).load(path);
  if (!blob) return false;
  auto elf = Elf::parse(blob->bytes());
  if (!elf) return false;
  auto syms = elf->dynamic_symbols();
  if (!syms) return false;
  const std::string init = "PyInit_" + stem;
  return std::any_of(syms->begin(), syms->end(), [&](const Symbol& sy) { return sy.defined() && sy.name == init; });
}

const std::string& torch_find_spec_script() {
  static const std::string s(data::file("torch_find_spec.py").value_or(""));
  return s;
}

std::string find_torch_package(const io::Seams& s, const std::string& python_exe) {
  // Isolated as every probe of an interpreter is (io/isolated_python): nothing of the current
  // folder runs, while PYTHONPATH's folders and the user site still count, as for the import.
  auto r = s.proc.run(io::isolated_python(python_exe, torch_find_spec_script(), io::PythonSite::needed));
  return r.ok() ? core::trim(r.out) : "";
}

std::string enclosing_site_packages(const std::string& abs_path) {
  for (std::string dir = core::dir_name(abs_path); dir.size() > 1; dir = core::dir_name(dir)) {
    const std::string base = core::base_name(dir);
    if (base == "site-packages" || base == "dist-packages") return dir;
  }
  return "";
}

std::optional<ExtensionTorch> ExtensionTorchFinder::find(const std::string& path) {
  if (!python_extension_module(path, s_, root_)) return std::nullopt;
  return locate_and_record(path);
}

ExtensionTorch ExtensionTorchFinder::locate_and_record(const std::string& path) {
  std::lock_guard<std::mutex> lock(mu_);
  auto t = locate(path);
  const std::pair<std::string, std::string> key{t.torch_dir, t.how};
  if (std::find(order_.begin(), order_.end(), key) == order_.end()) order_.push_back(key);
  return t;
}

namespace {

// What `import torch` loaded, as what the loader reuses before any search.
void preload(const ExtensionTorch& t, DepsOptions& opt) {
  opt.loaded.insert(opt.loaded.end(), t.loaded.begin(), t.loaded.end());
  if (!t.lib_folder.empty()) opt.preloaded.push_back(t.lib_folder);
}

// A library of torch's own that the file names itself (libc10.so, libtorch_cpu.so, ...), not found.
bool misses_torch_library(const DepsReport& d) {
  return std::any_of(d.libraries.begin(), d.libraries.end(), [&](const ResolvedLibrary& lib) {
    return !lib.path && lib.needed_by == d.path &&
           (lib.name.rfind("libc10", 0) == 0 || lib.name.rfind("libtorch", 0) == 0);
  });
}

// A shared library that is not also a program (no PT_INTERP): something else loads it.
bool loadable_library(const std::string& path, const io::Seams& s, const std::string& root) {
  DepsOptions opt;
  opt.root = root;
  auto blob = LibrarySearch(opt, s).load(path);
  if (!blob) return false;
  auto elf = Elf::parse(blob->bytes());
  if (!elf || elf->type() != 3) return false;
  return std::none_of(elf->segments().begin(), elf->segments().end(),
                      [](const Segment& seg) { return seg.type == 3 /* PT_INTERP */; });
}

}  // namespace

DepsReport ExtensionTorchFinder::resolve(const std::string& path, DepsOptions opt, bool* after_torch) {
  const DepsOptions alone = opt;
  bool after = add_preloaded(path, opt);
  if (after) opt.in_interpreter = true;
  auto d = resolve_deps(path, opt, s_);
  if (!after && misses_torch_library(d) && loadable_library(path, s_, root_)) {
    const auto t = locate_and_record(path);
    if (!t.loaded.empty() || !t.lib_folder.empty()) {
      opt = alone;
      preload(t, opt);
      opt.in_interpreter = true;
      d = resolve_deps(path, opt, s_);
      after = true;
    }
  }
  if (after_torch) *after_torch = after;
  return d;
}

ExtensionTorch ExtensionTorchFinder::locate(const std::string& path) {
  if (!root_.empty()) {
    // Inside an image no interpreter is run: torch beside the module is all that can be known.
    const std::string site = enclosing_site_packages(normalize_path("/" + path));
    if (!site.empty() && s_.fs.is_directory(normalize_path(root_ + "/" + site + "/torch/lib")))
      return {site + "/torch", "the site-packages it sits in", {}, site + "/torch/lib"};
    return {"", "inside the image, no torch beside it", {}, ""};
  }
  if (!python_.empty()) return asked(python_, "--python " + python_);
  const std::string abs = absolute_path(path, s_.fs);
  const std::string site = enclosing_site_packages(abs);
  if (!site.empty()) {
    if (s_.fs.is_directory(site + "/torch/lib")) return with_torch(site + "/torch", "the site-packages it sits in");
    // A venv's site-packages (VENV/lib/pythonX.Y/site-packages): its own interpreter says which
    // torch it imports, its base's too when created with --system-site-packages.
    for (std::string v = core::dir_name(site); v.size() > 1; v = core::dir_name(v)) {
      auto cfg = s_.fs.read(v + "/pyvenv.cfg");
      if (!cfg) continue;
      for (const char* exe : {"/bin/python3", "/bin/python"})
        if (s_.fs.is_executable(v + exe)) return asked(v + exe, "the interpreter of the venv at " + v);
      if (venv_value(*cfg, "include-system-site-packages") == "true") {
        std::string base = venv_value(*cfg, "executable");
        if (base.empty() && !venv_value(*cfg, "home").empty()) base = venv_value(*cfg, "home") + "/python3";
        if (!base.empty()) return asked(base, "the base interpreter of the venv at " + v);
      }
      break;
    }
    if (auto py = versioned_python(site); !py.empty())
      if (auto exe = io::which(s_, py)) return asked(*exe, fmt::format("{}, whose site-packages it sits in", py));
  }
  const std::string py = s_.env.get("PYTHON").value_or("python3");
  if (auto exe = io::which(s_, py))
    return asked(*exe, fmt::format("{} on PATH (--python names the interpreter that imports it)", py));
  return {"", fmt::format("no {} on PATH to find torch (--python names the interpreter that imports it)", py), {}, ""};
}

ExtensionTorch ExtensionTorchFinder::asked(const std::string& python, const std::string& how) {
  auto it = interpreter_torch_.find(python);
  if (it == interpreter_torch_.end()) it = interpreter_torch_.emplace(python, find_torch_package(s_, python)).first;
  if (it->second.empty()) return {"", how + ", which finds no torch", {}, ""};
  return with_torch(it->second, how);
}

// What `import torch` loads before any extension: torch/_C and everything it needs (through
// torch's own RUNPATH: torch/lib, the nvidia-* wheels), and libtorch_global_deps.
ExtensionTorch ExtensionTorchFinder::with_torch(const std::string& torch_dir, const std::string& how) {
  auto it = by_torch_.find(torch_dir);
  if (it != by_torch_.end()) return {torch_dir, how, it->second.loaded, it->second.lib_folder};
  ExtensionTorch t{torch_dir, how, {}, ""};
  std::vector<std::string> roots;
  for (const auto& name : s_.fs.list(torch_dir))
    if (name.rfind("_C.", 0) == 0 && python_extension_module(name)) roots.push_back(torch_dir + "/" + name);
  if (s_.fs.exists(torch_dir + "/lib/libtorch_global_deps.so"))
    roots.push_back(torch_dir + "/lib/libtorch_global_deps.so");
  for (const auto& r : roots) {
    const auto d = resolve_deps(r, DepsOptions{}, s_);
    for (const auto& lib : d.libraries) {
      if (!lib.path) continue;
      t.loaded.emplace_back(lib.name, *lib.path);
      if (core::base_name(*lib.path) != lib.name) t.loaded.emplace_back(core::base_name(*lib.path), *lib.path);
    }
  }
  // No torch/_C to start from (an unusual layout): every library in torch/lib, by file name.
  if (roots.empty()) t.lib_folder = torch_dir + "/lib";
  by_torch_.emplace(torch_dir, t);
  return t;
}

bool ExtensionTorchFinder::add_preloaded(const std::string& path, DepsOptions& opt) {
  auto t = find(path);
  if (!t) return false;
  preload(*t, opt);
  return true;
}

std::vector<ExtensionTorch> ExtensionTorchFinder::used() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<ExtensionTorch> out;
  for (const auto& [dir, how] : order_) out.push_back({dir, how, {}, ""});
  return out;
}

}  // namespace kiln::binary
