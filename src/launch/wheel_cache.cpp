#include "launch/wheel_cache.hpp"

#include "io/user_cache.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "core/arch_spec.hpp"
#include "core/fnv.hpp"
#include "probe/version_text.hpp"

namespace kiln::launch {
namespace {

// FNV-1a 128 over the manifest: the per-file hashes are 64-bit, the key wider so that two inputs
// never share an entry by accident across a long-lived cache.
std::string fnv128_hex(std::string_view data) {
  unsigned __int128 h = (static_cast<unsigned __int128>(0x6c62272e07bb0142ULL) << 64) | 0x62b821756295c58dULL;
  const unsigned __int128 prime = (static_cast<unsigned __int128>(1) << 88) | 0x13b;
  for (unsigned char c : data) h = (h ^ c) * prime;
  return fmt::format("{:016x}{:016x}", static_cast<std::uint64_t>(h >> 64), static_cast<std::uint64_t>(h));
}

// Folders that hold no input of the build: version control, the build's own outputs and caches.
bool skipped_dir(const std::string& name, bool top) {
  static const std::set<std::string> anywhere = {".git", ".hg", ".svn", "__pycache__", ".eggs", ".pytest_cache",
                                                 ".mypy_cache", ".tox", ".nox", ".venv", ".kiln"};
  if (anywhere.count(name) || name.ends_with(".egg-info")) return true;
  return top && (name == "build" || name == "dist");
}

void walk(const io::Filesystem& fs, const std::string& root, const std::string& rel, const std::string& build_dir,
          std::string& out, std::size_t& files) {
  const std::string dir = rel.empty() ? root : root + "/" + rel;
  for (const auto& name : fs.list(dir)) {
    const std::string r = rel.empty() ? name : rel + "/" + name;
    const std::string path = root + "/" + r;
    if (path == build_dir) continue;
    if (fs.is_directory(path)) {
      if (fs.is_symlink(path)) {
        out += "dirlink " + r + "\n";  // not followed: a link may loop or leave the project
        continue;
      }
      if (!skipped_dir(name, rel.empty())) walk(fs, root, r, build_dir, out, files);
      continue;
    }
    if (name.ends_with(".pyc")) continue;
    auto content = fs.read(path);
    if (!content) {
      out += "unreadable " + r + "\n";
      continue;
    }
    out += fmt::format("file {} {} {:016x}\n", r, content->size(), core::fnv1a64(*content));
    ++files;
  }
}

std::string replace_all(std::string s, const std::string& what, const std::string& with) {
  if (what.empty()) return s;
  for (size_t pos = 0; (pos = s.find(what, pos)) != std::string::npos; pos += with.size()) s.replace(pos, what.size(), with);
  return s;
}

constexpr std::string_view kManifestHead = "kiln wheel cache 1\n";

}  // namespace

WheelKey wheel_key(const plan::Plan& p, const io::Seams& s) {
  std::string m(kManifestHead);
  m += fmt::format("kiln {}\n", KILN_VERSION);
  m += fmt::format("targets {}\nprune_archs {}\nbuild_type {}\n", core::format_cmake(p.targets), p.prune_archs ? 1 : 0,
                   p.build_type);
  m += "python " + p.python + "\n";
  if (!p.torch_package.empty()) {
    auto v = s.fs.read(p.torch_package + "/version.py");
    m += fmt::format("torch {} {:016x}\n", p.torch_package, v ? core::fnv1a64(*v) : 0);
  }
  m += fmt::format("nvcc {} {}\n", p.nvcc, p.nvcc_version);
  if (!p.real_cxx.empty()) {
    auto r = s.proc.run({.argv = {p.real_cxx, "--version"}});
    m += fmt::format("cxx {} {}\n", p.real_cxx, r.ok() ? probe::first_line(r.out) : std::string("(no --version)"));
  }
  // What the build reads from its environment: kiln's own variables (build-folder paths made
  // relative, so another folder hits), the user's compiler variables and every variable the
  // project's build files name. MAX_JOBS only sets Ninja's -j.
  std::map<std::string, std::string> env;
  for (const auto& [k, v] : p.env)
    if (k != "MAX_JOBS") env[k] = replace_all(v, p.build_dir, "<build>");
  static const char* const kRead[] = {"CC", "CXX", "CFLAGS", "CXXFLAGS", "CPPFLAGS", "LDFLAGS", "LDSHARED",
                                      "NVCC_APPEND_FLAGS", "NVCC_PREPEND_FLAGS", "NVCC_CCBIN", "CUDA_HOME", "CUDA_PATH",
                                      "CUDACXX", "TORCH_CUDA_ARCH_LIST", "PYTHONPATH", "CPATH", "C_INCLUDE_PATH",
                                      "CPLUS_INCLUDE_PATH", "LIBRARY_PATH", "_GLIBCXX_USE_CXX11_ABI"};
  std::vector<std::string> names(std::begin(kRead), std::end(kRead));
  for (const auto& k : p.knobs.knobs)
    if (!k.cmake) names.push_back(k.name);
  for (const auto& n : names)
    if (!env.count(n))
      if (auto v = s.env.get(n)) env[n] = *v;
  for (const auto& [k, v] : env) m += "env " + k + "=" + v + "\n";
  for (const auto& k : p.knobs.knobs)
    if (k.cmake && !k.value.empty()) m += "define " + k.name + "=" + k.value + "\n";
  WheelKey key;
  walk(s.fs, p.project_dir, "", p.build_dir, m, key.files);
  key.hex = fnv128_hex(m);
  key.manifest = std::move(m);
  return key;
}

std::string wheel_cache_root(const plan::Plan& p, const io::Environment& env) {
  if (!p.cache_dir.empty()) return p.cache_dir + "/kiln-wheels";
  const std::string user = io::kiln_user_cache(env);
  return user.empty() ? "" : user + "/wheels";
}

std::optional<CachedWheel> find_cached_wheel(const io::Filesystem& fs, const std::string& root, const WheelKey& key) {
  if (root.empty() || key.hex.empty()) return std::nullopt;
  auto manifest = fs.read(root + "/" + key.hex + ".manifest");
  if (!manifest) return std::nullopt;
  // "wheel NAME SIZE" then the inputs: the inputs must be these very ones (not only the hash).
  const auto eol = manifest->find('\n');
  const std::string head = manifest->substr(0, eol);
  if (head.rfind("wheel ", 0) != 0 || eol == std::string::npos || manifest->compare(eol + 1, std::string::npos, key.manifest) != 0)
    return std::nullopt;
  const auto sp = head.rfind(' ');
  CachedWheel w{root + "/" + key.hex + ".whl", head.substr(6, sp - 6)};
  auto size = fs.size(w.path);
  if (!size || std::to_string(*size) != head.substr(sp + 1) || w.name.find('/') != std::string::npos || !w.name.ends_with(".whl"))
    return std::nullopt;
  return w;
}

namespace {

// Most recently used last; entries beyond `keep` are removed, oldest first.
void mark_used(io::Filesystem& fs, const std::string& root, const std::string& hex, std::size_t keep) {
  std::vector<std::string> order;
  if (auto text = fs.read(root + "/index"))
    for (size_t pos = 0; pos < text->size();) {
      auto eol = text->find('\n', pos);
      std::string line = text->substr(pos, eol == std::string::npos ? std::string::npos : eol - pos);
      if (!line.empty() && line != hex) order.push_back(line);
      pos = eol == std::string::npos ? text->size() : eol + 1;
    }
  order.push_back(hex);
  while (order.size() > std::max<std::size_t>(1, keep)) {
    fs.remove(root + "/" + order.front() + ".manifest");  // first: the entry stops being complete
    fs.remove(root + "/" + order.front() + ".whl");
    order.erase(order.begin());
  }
  std::string text;
  for (const auto& h : order) text += h + "\n";
  fs.write(root + "/index", text);
}

}  // namespace

bool store_wheel(io::Filesystem& fs, const std::string& root, const WheelKey& key, const std::string& wheel_path,
                 std::size_t keep) {
  if (root.empty() || key.hex.empty() || !fs.make_dirs(root)) return false;
  auto bytes = fs.read(wheel_path);
  if (!bytes) return false;
  const std::string name = wheel_path.substr(wheel_path.find_last_of('/') + 1);
  fs.remove(root + "/" + key.hex + ".manifest");
  if (!fs.write(root + "/" + key.hex + ".whl", *bytes)) return false;
  // The manifest last: a reader never takes a wheel still being written.
  if (!fs.write(root + "/" + key.hex + ".manifest", fmt::format("wheel {} {}\n", name, bytes->size()) + key.manifest))
    return false;
  mark_used(fs, root, key.hex, keep);
  return true;
}

void touch_wheel(io::Filesystem& fs, const std::string& root, const WheelKey& key, std::size_t keep) {
  mark_used(fs, root, key.hex, keep);
}

}  // namespace kiln::launch
