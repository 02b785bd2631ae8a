#include "binary/ld_search.hpp"

#include <filesystem>
#include <set>

#include "binary/system_dirs.hpp"
#include "core/data_toml.hpp"
#include "core/text.hpp"

namespace kiln::binary {
namespace {

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

}  // namespace

// Collapses "a/./b", "a/../b" and repeated slashes so $ORIGIN/../x names the same file every time.
std::string normalize_path(const std::string& path) {
  std::vector<std::string> parts;
  size_t i = 0;
  const bool abs = !path.empty() && path[0] == '/';
  while (i <= path.size()) {
    size_t j = path.find('/', i);
    if (j == std::string::npos) j = path.size();
    std::string part = path.substr(i, j - i);
    if (part == "..") {
      if (!parts.empty() && parts.back() != "..")
        parts.pop_back();
      else if (!abs)
        parts.push_back(part);
    } else if (!part.empty() && part != ".") {
      parts.push_back(part);
    }
    i = j + 1;
  }
  std::string out = abs ? "/" : "";
  for (size_t k = 0; k < parts.size(); ++k) out += (k ? "/" : "") + parts[k];
  return out.empty() ? "." : out;
}

// The path on this machine of `p` inside the image. Symlinks are followed inside the image: CUDA
// images link /usr/local/cuda to /etc/alternatives/cuda to /usr/local/cuda-12.x, all absolute,
// and following them on this machine would find this machine's CUDA instead of the image's.
std::string LibrarySearch::host(const std::string& p) const {
  if (opt_.root.empty()) return p;
  const std::string root = normalize_path(opt_.root);
  if (!dynamic_cast<const io::RealFilesystem*>(&s_.fs)) return normalize_path(root + "/" + p);
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

std::shared_ptr<const Blob> LibrarySearch::load(const std::string& image_path) const {
  const std::string h = host(image_path);
  if (dynamic_cast<const io::RealFilesystem*>(&s_.fs)) {
    auto b = map_file(h);
    return b ? *b : nullptr;
  }
  auto text = s_.fs.read(h);
  return text ? own_bytes(h, std::move(*text)) : nullptr;
}

// $ORIGIN, $LIB and $PLATFORM; one template can expand to several folders ($LIB).
std::vector<std::string> LibrarySearch::expand(const std::string& entry, const std::string& origin) const {
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
  for (auto& e : out) e = normalize_path(e);
  return out;
}

std::vector<std::string> LibrarySearch::split_path(const std::string& list, const std::string& origin) const {
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
bool LibrarySearch::usable(const std::string& path, std::uint16_t machine, std::shared_ptr<const Blob>& blob) const {
  if (!s_.fs.exists(host(path)) || s_.fs.is_directory(host(path))) return false;
  blob = load(path);
  if (!blob) return false;
  auto e = Elf::parse(blob->bytes());
  return e && e->machine() == machine;
}

const std::vector<LdCacheEntry>& LibrarySearch::cache() {
  if (!cache_loaded_) {
    cache_loaded_ = true;
    if (auto b = load("/etc/ld.so.cache"))
      if (auto c = parse_ld_cache(b->bytes())) cache_ = std::move(*c);
  }
  return cache_;
}

ResolvedLibrary LibrarySearch::find(const std::string& name, const std::vector<LoadedObject>& objs, int from,
                                    std::uint16_t machine, std::shared_ptr<const Blob>& blob) {
  ResolvedLibrary r;
  r.name = name;
  r.needed_by = objs[from].path;
  if (driver_libraries().count(name)) {
    // Still report where it is if it is there, but never as missing.
    r.via = Via::driver;
  }
  auto try_dir = [&](const std::string& dir, Via via) {
    const std::string cand = normalize_path(dir + "/" + name);
    r.searched.push_back(dir);
    if (usable(cand, machine, blob)) {
      r.path = cand;
      r.via = via;
      return true;
    }
    return false;
  };
  // A library already loaded under this name is reused before any search.
  for (const auto& [loaded_name, loaded_path] : opt_.loaded)
    if (loaded_name == name && usable(loaded_path, machine, blob)) {
      r.path = loaded_path;
      r.via = Via::preloaded;
      return r;
    }
  for (const auto& d : opt_.preloaded)
    if (try_dir(d, Via::preloaded)) return r;
  if (name.find('/') != std::string::npos) {
    const std::string cand =
        name[0] == '/' ? normalize_path(name) : normalize_path(core::dir_name(objs[0].path) + "/" + name);
    if (usable(cand, machine, blob)) r.path = cand, r.via = Via::path;
    return r;
  }
  if (!objs[from].has_runpath)
    for (int o = from; o >= 0; o = objs[o].parent)
      if (!objs[o].has_runpath)
        for (const auto& d : objs[o].rpath)
          if (try_dir(d, Via::rpath)) return r;
  if (opt_.root.empty())
    if (auto llp = s_.env.get("LD_LIBRARY_PATH"))
      for (const auto& d : split_path(*llp, core::dir_name(objs[from].path)))
        if (try_dir(d, Via::ld_library_path)) return r;
  for (const auto& d : objs[from].runpath)
    if (try_dir(d, Via::runpath)) return r;
  const auto flags = ld_cache_flags_for(machine);
  for (const auto& e : cache()) {
    if (e.name != name || (e.flags & 0xffff) != flags) continue;
    r.searched.push_back("ld.so.cache");
    if (usable(e.path, machine, blob)) {
      r.path = e.path;
      r.via = Via::ld_so_cache;
      return r;
    }
  }
  for (const auto& d : ld_so_default_dirs())
    if (try_dir(d, Via::default_dirs)) return r;
  return r;
}

}  // namespace kiln::binary
