#include "binary/deps.hpp"

#include <algorithm>
#include <deque>
#include <filesystem>
#include <map>
#include <memory>
#include <set>

#include <fmt/format.h>

#include "binary/elf.hpp"
#include "binary/ld_cache.hpp"
#include "binary/mapped_file.hpp"
#include "core/data_toml.hpp"

namespace kiln::binary {
namespace {

// ld.so's trusted folders after the cache. Debian/Ubuntu put libraries in the multiarch folders,
// other distributions in lib64; ld.so tries its configured ones, so kiln tries the union in order.
const std::vector<std::string> kDefaultDirs = {"/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib64",
                                               "/usr/lib64", "/lib", "/usr/lib"};

std::string dirname(const std::string& p) {
  auto pos = p.find_last_of('/');
  if (pos == std::string::npos) return ".";
  if (pos == 0) return "/";
  return p.substr(0, pos);
}
std::string basename(const std::string& p) {
  auto pos = p.find_last_of('/');
  return pos == std::string::npos ? p : p.substr(pos + 1);
}

// Collapses "a/./b", "a/../b" and repeated slashes so $ORIGIN/../x names the same file every time.
std::string normalize(const std::string& path) {
  std::vector<std::string> parts;
  size_t i = 0;
  const bool abs = !path.empty() && path[0] == '/';
  while (i <= path.size()) {
    size_t j = path.find('/', i);
    if (j == std::string::npos) j = path.size();
    std::string part = path.substr(i, j - i);
    if (part == "..") {
      if (!parts.empty() && parts.back() != "..") parts.pop_back();
      else if (!abs) parts.push_back(part);
    } else if (!part.empty() && part != ".") {
      parts.push_back(part);
    }
    i = j + 1;
  }
  std::string out = abs ? "/" : "";
  for (size_t k = 0; k < parts.size(); ++k) out += (k ? "/" : "") + parts[k];
  return out.empty() ? "." : out;
}

const std::set<std::string>& driver_libraries() {
  static const std::set<std::string> libs = [] {
    std::set<std::string> s;
    auto t = data::load_toml("driver_libraries.toml");
    if (auto* arr = t["libraries"].as_array())
      for (auto& v : *arr)
        if (auto str = v.value<std::string>()) s.insert(*str);
    return s;
  }();
  return libs;
}

struct Object {
  std::string path;  // inside root
  std::shared_ptr<const Blob> blob;
  std::optional<Elf> elf;
  std::vector<std::string> rpath, runpath;
  bool has_runpath = false;
  int parent = -1;
};

class Resolver {
 public:
  Resolver(const DepsOptions& opt, const io::Seams& s) : opt_(opt), s_(s) {}

  // The path on this machine of `p` inside the image. Symlinks are followed inside the image: CUDA
  // images link /usr/local/cuda to /etc/alternatives/cuda to /usr/local/cuda-12.x, all absolute,
  // and following them on this machine would find this machine's CUDA instead of the image's.
  std::string host(const std::string& p) const {
    if (opt_.root.empty()) return p;
    const std::string root = normalize(opt_.root);
    if (!dynamic_cast<const io::RealFilesystem*>(&s_.fs)) return normalize(root + "/" + p);
    std::vector<std::string> todo;  // components still to walk, last first
    auto push_path = [&](const std::string& path) {
      std::vector<std::string> parts;
      size_t i = 0;
      while (i <= path.size()) {
        size_t j = path.find('/', i);
        if (j == std::string::npos) j = path.size();
        if (j > i) parts.push_back(path.substr(i, j - i));
        i = j + 1;
      }
      for (auto it = parts.rbegin(); it != parts.rend(); ++it) todo.push_back(*it);
    };
    push_path(p);
    std::vector<std::string> done;  // resolved components inside the image
    for (int hops = 0; !todo.empty() && hops < 64;) {
      std::string c = todo.back();
      todo.pop_back();
      if (c == ".") continue;
      if (c == "..") {
        if (!done.empty()) done.pop_back();  // never above the image's root
        continue;
      }
      std::string here = root;
      for (const auto& d : done) here += "/" + d;
      here += "/" + c;
      std::error_code ec;
      if (std::filesystem::is_symlink(here, ec)) {
        auto target = std::filesystem::read_symlink(here, ec).string();
        if (!ec) {
          ++hops;
          if (!target.empty() && target[0] == '/') done.clear();
          push_path(target);
          continue;
        }
      }
      done.push_back(c);
    }
    std::string out = root;
    for (const auto& d : done) out += "/" + d;
    return out;
  }

  std::shared_ptr<const Blob> load(const std::string& image_path) const {
    const std::string h = host(image_path);
    if (dynamic_cast<const io::RealFilesystem*>(&s_.fs)) {
      auto b = map_file(h);
      return b ? *b : nullptr;
    }
    auto text = s_.fs.read(h);
    return text ? own_bytes(h, std::move(*text)) : nullptr;
  }

  // $ORIGIN, $LIB and $PLATFORM; one template can expand to several folders ($LIB).
  std::vector<std::string> expand(const std::string& entry, const std::string& origin) const {
    std::vector<std::string> out{entry};
    auto subst = [&](const std::string& var, const std::vector<std::string>& values) {
      std::vector<std::string> next;
      for (const auto& e : out) {
        bool any = false;
        for (const std::string& spelled : {"$" + var, "${" + var + "}"}) {
          auto pos = e.find(spelled);
          if (pos == std::string::npos) continue;
          any = true;
          for (const auto& v : values) {
            std::string r = e;
            for (size_t p = r.find(spelled); p != std::string::npos; p = r.find(spelled, p + v.size()))
              r.replace(p, spelled.size(), v);
            next.push_back(r);
          }
          break;
        }
        if (!any) next.push_back(e);
      }
      out = std::move(next);
    };
    subst("ORIGIN", {origin});
    subst("LIB", {"lib/x86_64-linux-gnu", "lib64"});
    subst("PLATFORM", {"x86_64"});
    for (auto& e : out) e = normalize(e);
    return out;
  }

  std::vector<std::string> split_path(const std::string& list, const std::string& origin) const {
    std::vector<std::string> out;
    size_t i = 0;
    while (i <= list.size()) {
      size_t j = list.find_first_of(":;", i);
      if (j == std::string::npos) j = list.size();
      std::string e = list.substr(i, j - i);
      if (!e.empty())
        for (auto& x : expand(e, origin)) out.push_back(x);
      i = j + 1;
    }
    return out;
  }

  // An ELF of the same machine at `path` (ld.so skips other classes and machines silently).
  bool usable(const std::string& path, std::uint16_t machine, std::shared_ptr<const Blob>& blob) const {
    if (!s_.fs.exists(host(path)) || s_.fs.is_directory(host(path))) return false;
    blob = load(path);
    if (!blob) return false;
    auto e = Elf::parse(blob->bytes());
    return e && e->machine() == machine;
  }

  const std::vector<LdCacheEntry>& cache() {
    if (!cache_loaded_) {
      cache_loaded_ = true;
      if (auto b = load("/etc/ld.so.cache"))
        if (auto c = parse_ld_cache(b->bytes())) cache_ = std::move(*c);
    }
    return cache_;
  }

  ResolvedLibrary find(const std::string& name, const std::vector<Object>& objs, int from, std::uint16_t machine,
                       std::shared_ptr<const Blob>& blob) {
    ResolvedLibrary r;
    r.name = name;
    r.needed_by = objs[from].path;
    if (driver_libraries().count(name)) {
      // Still report where it is if it is there, but never as missing.
      r.via = "driver";
    }
    auto try_dir = [&](const std::string& dir, const char* via) {
      const std::string cand = normalize(dir + "/" + name);
      r.searched.push_back(dir);
      if (usable(cand, machine, blob)) {
        r.path = cand;
        r.via = via;
        return true;
      }
      return false;
    };
    if (name.find('/') != std::string::npos) {
      const std::string cand = name[0] == '/' ? normalize(name) : normalize(dirname(objs[0].path) + "/" + name);
      if (usable(cand, machine, blob)) r.path = cand, r.via = "path";
      return r;
    }
    if (!objs[from].has_runpath)
      for (int o = from; o >= 0; o = objs[o].parent)
        if (!objs[o].has_runpath)
          for (const auto& d : objs[o].rpath)
            if (try_dir(d, "rpath")) return r;
    if (opt_.root.empty())
      if (auto llp = s_.env.get("LD_LIBRARY_PATH"))
        for (const auto& d : split_path(*llp, dirname(objs[from].path)))
          if (try_dir(d, "ld_library_path")) return r;
    for (const auto& d : objs[from].runpath)
      if (try_dir(d, "runpath")) return r;
    const auto flags = ld_cache_flags_for(machine);
    for (const auto& e : cache()) {
      if (e.name != name || (e.flags & 0xffff) != flags) continue;
      r.searched.push_back("ld.so.cache");
      if (usable(e.path, machine, blob)) {
        r.path = e.path;
        r.via = "ld.so.cache";
        return r;
      }
    }
    for (const auto& d : kDefaultDirs)
      if (try_dir(d, "default")) return r;
    return r;
  }

 private:
  const DepsOptions& opt_;
  const io::Seams& s_;
  bool cache_loaded_ = false;
  std::vector<LdCacheEntry> cache_;
};

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

std::vector<std::string> version_parts(const std::string& v) {
  std::vector<std::string> out;
  auto us = v.find('_');
  std::string nums = us == std::string::npos ? v : v.substr(us + 1);
  size_t i = 0;
  while (i <= nums.size()) {
    size_t j = nums.find('.', i);
    if (j == std::string::npos) j = nums.size();
    out.push_back(nums.substr(i, j - i));
    i = j + 1;
  }
  return out;
}

}  // namespace

bool version_less(const std::string& a, const std::string& b) {
  auto pa = version_parts(a), pb = version_parts(b);
  for (size_t i = 0; i < std::max(pa.size(), pb.size()); ++i) {
    long x = i < pa.size() ? std::atol(pa[i].c_str()) : 0, y = i < pb.size() ? std::atol(pb[i].c_str()) : 0;
    if (x != y) return x < y;
  }
  return false;
}

std::size_t DepsReport::missing() const {
  return static_cast<std::size_t>(std::count_if(libraries.begin(), libraries.end(),
                                                [](const ResolvedLibrary& l) { return !l.path && l.via != "driver"; }));
}

std::string cxx_abi_of_path(const std::string& path, const io::Seams& s, const std::string& root) {
  DepsOptions opt;
  opt.root = root;
  Resolver r(opt, s);
  auto blob = r.load(path);
  if (!blob) return "none";
  auto elf = Elf::parse(blob->bytes());
  if (!elf) return "none";
  auto syms = elf->dynamic_symbols();
  return syms ? abi_of(*syms) : "none";
}

DepsReport resolve_deps(const std::string& given, const DepsOptions& opt, const io::Seams& s) {
  DepsReport rep;
  Resolver res(opt, s);
  // A path under --root is taken as the image path below it; any other path as inside the image.
  std::string path = given;
  if (!opt.root.empty()) {
    const std::string root = normalize(opt.root);
    const std::string g = normalize(given);
    if (g.rfind(root + "/", 0) == 0) path = g.substr(root.size());
    if (path.empty() || path[0] != '/') path = "/" + path;
  }
  rep.path = path;
  std::vector<Object> objs(1);
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
    const std::string origin = dirname(objs[i].path);
    if (dyn->rpath) objs[i].rpath = res.split_path(std::string(*dyn->rpath), origin);
    if (dyn->runpath) objs[i].runpath = res.split_path(std::string(*dyn->runpath), origin), objs[i].has_runpath = true;
    if (dyn->soname) seen.insert(std::string(*dyn->soname));
    seen.insert(basename(objs[i].path));
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
          Object o;
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
  if (auto needs = root.version_needs()) {
    for (const auto& vn : *needs) {
      std::vector<std::string> vs;
      for (auto v : vn.versions) {
        std::string ver(v);
        vs.push_back(ver);
        std::string* best = ver.rfind("GLIBCXX_", 0) == 0 ? &rep.abi.max_glibcxx
                            : ver.rfind("GLIBC_", 0) == 0 ? &rep.abi.max_glibc
                                                           : nullptr;
        if (best && (best->empty() || version_less(*best, ver))) *best = ver;
      }
      rep.abi.version_needs.emplace_back(std::string(vn.file), std::move(vs));
    }
    // Every needed version must be defined by the library that resolved for that file name.
    for (const auto& vn : *needs) {
      for (const auto& lib : rep.libraries) {
        if (lib.name != vn.file || !lib.path) continue;
        auto it = std::find_if(objs.begin(), objs.end(), [&](const Object& o) { return o.path == *lib.path; });
        if (it == objs.end()) continue;
        auto defs = it->elf->version_defs();
        if (!defs) continue;
        for (auto v : vn.versions)
          if (std::find(defs->begin(), defs->end(), v) == defs->end())
            rep.version_problems.push_back({std::string(v), std::string(vn.file), *lib.path, path});
      }
    }
  }
  if (opt.undefined && dsyms) {
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
    bool python_extension = false;
    for (const auto& sy : *dsyms) python_extension |= sy.defined() && sy.name.rfind("PyInit_", 0) == 0;
    for (const auto& sy : *dsyms) {
      if (sy.defined() || sy.name.empty() || sy.binding == 2 /* weak */ || sy.type == 3 /* section */) continue;
      // The interpreter provides the Python C API to extension modules; they do not link libpython.
      if (python_extension && (sy.name.rfind("Py", 0) == 0 || sy.name.rfind("_Py", 0) == 0)) continue;
      auto it = defined.find(sy.name);
      bool ok = it != defined.end() &&
                (sy.version.empty() || std::any_of(it->second.begin(), it->second.end(), [&](std::string_view v) {
                   return v.empty() || v == sy.version;
                 }));
      if (!ok) rep.undefined.push_back(std::string(sy.name) + (sy.version.empty() ? "" : "@" + std::string(sy.version)));
    }
  }
  return rep;
}

}  // namespace kiln::binary
