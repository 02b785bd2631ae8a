#include "binary/deps.hpp"

#include <algorithm>
#include <deque>
#include <map>
#include <memory>
#include <set>

#include <fmt/format.h>

#include "core/text.hpp"
#include "core/version.hpp"
#include "binary/elf.hpp"
#include "binary/ld_search.hpp"

namespace kiln::binary {
namespace {
std::string abi_of(const std::vector<Symbol>& syms) {
  bool cxx11 = false, old = false;
  for (const auto& s : syms) {
    if (s.name.size() < 4 || s.name[0] != '_' || s.name[1] != 'Z') continue;
    if (s.name.find("__cxx11") != std::string_view::npos) cxx11 = true;
    // The old ABI's std::string is the "Ss" abbreviation, reserved for std::basic_string<char>:
    // its members (_ZNSs..., _ZNKSs...) and parameters (RKSs, PKSs) show it unambiguously.
    else if (s.name.rfind("_ZNSs", 0) == 0 || s.name.rfind("_ZNKSs", 0) == 0 ||
             s.name.find("RKSs") != std::string_view::npos || s.name.find("PKSs") != std::string_view::npos)
      old = true;
  }
  return cxx11 && old ? "both" : cxx11 ? "cxx11" : old ? "pre-cxx11" : "none";
}

}  // namespace

std::size_t DepsReport::missing() const {
  return static_cast<std::size_t>(std::count_if(
      libraries.begin(), libraries.end(), [](const ResolvedLibrary& l) { return !l.path && l.via != Via::driver; }));
}

std::string cxx_abi_of_path(const std::string& path, const io::Seams& s, const std::string& root) {
  DepsOptions opt;
  opt.root = root;
  LibrarySearch r(opt, s);
  auto blob = r.load(path);
  if (!blob) return "none";
  auto elf = Elf::parse(blob->bytes());
  if (!elf) return "none";
  auto syms = elf->dynamic_symbols();
  return syms ? abi_of(*syms) : "none";
}

namespace {

// The newest GLIBC_/GLIBCXX_ versions the file needs, and every needed version that the library
// resolved for that file name does not define.
void check_version_needs(const std::vector<VersionNeed>& needs, const std::vector<LoadedObject>& objs,
                         const std::string& path, DepsReport& rep) {
  for (const auto& vn : needs) {
    std::vector<std::string> vs;
    for (auto v : vn.versions) {
      std::string ver(v);
      vs.push_back(ver);
      std::string* best = ver.rfind("GLIBCXX_", 0) == 0 ? &rep.abi.max_glibcxx
                          : ver.rfind("GLIBC_", 0) == 0 ? &rep.abi.max_glibc
                                                        : nullptr;
      if (best && (best->empty() || core::compare(core::symbol_version(*best), core::symbol_version(ver)) < 0))
        *best = ver;
    }
    rep.abi.version_needs.emplace_back(std::string(vn.file), std::move(vs));
  }
  // Every needed version must be defined by the library that resolved for that file name.
  for (const auto& vn : needs) {
    for (const auto& lib : rep.libraries) {
      if (lib.name != vn.file || !lib.path) continue;
      auto it = std::find_if(objs.begin(), objs.end(), [&](const LoadedObject& o) { return o.path == *lib.path; });
      if (it == objs.end()) continue;
      auto defs = it->elf->version_defs();
      if (!defs) continue;
      for (auto v : vn.versions)
        if (std::find(defs->begin(), defs->end(), v) == defs->end())
          rep.version_problems.push_back({std::string(v), std::string(vn.file), *lib.path, path});
    }
  }
}

// Undefined symbols of the file that no loaded library defines (weak ones and, for a Python
// extension or a library loaded into the interpreter, the interpreter's API excepted).
void find_undefined(const std::vector<Symbol>& dsyms, const std::vector<LoadedObject>& objs, bool in_interpreter,
                    DepsReport& rep) {
  std::map<std::string_view, std::vector<std::string_view>> defined;  // name -> versions
  std::vector<std::vector<Symbol>> keep;
  keep.reserve(objs.size());
  for (size_t k = 1; k < objs.size(); ++k) {
    auto syms = objs[k].elf->dynamic_symbols();
    if (!syms) continue;
    keep.push_back(std::move(*syms));
    for (const auto& sy : keep.back())
      if (sy.defined() && !sy.name.empty()) defined[sy.name].push_back(sy.version);
  }
  bool python_extension = in_interpreter;
  for (const auto& sy : dsyms) python_extension |= sy.defined() && sy.name.rfind("PyInit_", 0) == 0;
  for (const auto& sy : dsyms) {
    if (sy.defined() || sy.name.empty() || sy.binding == 2 /* weak */ || sy.type == 3 /* section */) continue;
    // The interpreter provides the Python C API to extension modules; they do not link libpython.
    if (python_extension && (sy.name.rfind("Py", 0) == 0 || sy.name.rfind("_Py", 0) == 0)) continue;
    auto it = defined.find(sy.name);
    bool ok = it != defined.end() &&
              (sy.version.empty() || std::any_of(it->second.begin(), it->second.end(),
                                                 [&](std::string_view v) { return v.empty() || v == sy.version; }));
    if (!ok) rep.undefined.push_back(std::string(sy.name) + (sy.version.empty() ? "" : "@" + std::string(sy.version)));
  }
}

}  // namespace

DepsReport resolve_deps(const std::string& given, const DepsOptions& opt, const io::Seams& s) {
  DepsReport rep;
  LibrarySearch res(opt, s);
  // A path under --root is taken as the image path below it; any other path as inside the image.
  std::string path = given;
  if (!opt.root.empty()) {
    const std::string root = normalize_path(opt.root);
    const std::string g = normalize_path(given);
    if (g.rfind(root + "/", 0) == 0) path = g.substr(root.size());
    if (path.empty() || path[0] != '/') path = "/" + path;
  }
  rep.path = path;
  std::vector<LoadedObject> objs(1);
  objs[0].path = path;
  objs[0].blob = res.load(path);
  if (!objs[0].blob) {
    rep.error = res.host(path) + ": cannot read";
    return rep;
  }
  auto elf0 = Elf::parse(objs[0].blob->bytes());
  if (!elf0) {
    if (looks_like_elf(objs[0].blob->bytes())) rep.error = elf0.error().to_string();
    return rep;  // not an ELF: no dependencies to speak of
  }
  rep.is_elf = true;
  const std::uint16_t machine = elf0->machine();
  objs[0].elf = std::move(*elf0);
  std::set<std::string> seen;  // sonames / names already loaded
  std::deque<int> queue{0};
  while (!queue.empty()) {
    const int i = queue.front();
    queue.pop_front();
    auto dyn = objs[i].elf->dynamic();
    if (!dyn) {
      if (i == 0) rep.error = dyn.error().to_string();
      continue;
    }
    const std::string origin = core::dir_name(objs[i].path);
    if (dyn->rpath) objs[i].rpath = res.split_path(std::string(*dyn->rpath), origin);
    if (dyn->runpath) objs[i].runpath = res.split_path(std::string(*dyn->runpath), origin), objs[i].has_runpath = true;
    if (dyn->soname) seen.insert(std::string(*dyn->soname));
    seen.insert(core::base_name(objs[i].path));
    if (i == 0) {
      if (dyn->soname) rep.soname = std::string(*dyn->soname);
      if (dyn->rpath) rep.rpath = std::string(*dyn->rpath);
      if (dyn->runpath) rep.runpath = std::string(*dyn->runpath);
      for (auto n : dyn->needed) rep.needed.emplace_back(n);
    }
    for (auto n : dyn->needed) {
      const std::string name(n);
      if (seen.count(name)) continue;
      seen.insert(name);
      std::shared_ptr<const Blob> blob;
      auto lib = res.find(name, objs, i, machine, blob);
      if (lib.path && blob) {
        if (auto e = Elf::parse(blob->bytes())) {
          LoadedObject o;
          o.path = *lib.path;
          o.blob = blob;
          o.elf = std::move(*e);
          o.parent = i;
          objs.push_back(std::move(o));
          queue.push_back(static_cast<int>(objs.size()) - 1);
        }
      }
      rep.libraries.push_back(std::move(lib));
    }
  }
  // ABI and symbol versions of the file itself.
  const Elf& root = *objs[0].elf;
  auto dsyms = root.dynamic_symbols();
  if (dsyms) rep.abi.cxx_abi = abi_of(*dsyms);
  if (auto needs = root.version_needs()) check_version_needs(*needs, objs, path, rep);
  if (opt.undefined && dsyms) find_undefined(*dsyms, objs, opt.in_interpreter, rep);
  return rep;
}

}  // namespace kiln::binary
