#include "launch/wheel_cache.hpp"

#include "core/text.hpp"
#include "io/user_cache.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <set>

#include "core/build_names.hpp"
#include "core/arch_spec.hpp"
#include "core/fnv.hpp"
#include "io/interrupt.hpp"
#include "io/file_chunks.hpp"
#include "launch/wheel_index.hpp"
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
  static const std::set<std::string> anywhere = {".git",        ".hg",  ".svn", "__pycache__", ".eggs", ".pytest_cache",
                                                 ".mypy_cache", ".tox", ".nox", ".venv",       ".kiln"};
  if (anywhere.count(name) || name.ends_with(".egg-info")) return true;
  return top && (name == "build" || name == "dist");
}

// Size and FNV-1a 64 of a regular file, read in pieces (a 1.5 GB file costs 64 KiB, not its size);
// nullopt for a FIFO, a device or an unreadable file.
std::optional<std::pair<std::uint64_t, std::uint64_t>> file_hash(const io::Filesystem& fs, const std::string& path) {
  std::uint64_t size = 0, h = core::fnv1a64("");
  const bool ok = io::read_chunks(fs, path, [&](std::string_view chunk) {
    size += chunk.size();
    for (unsigned char c : chunk) h = (h ^ c) * 1099511628211ULL;
  });
  if (!ok) return std::nullopt;
  return std::pair{size, h};
}

// `linked`: inside a symlinked folder already. Such a folder is hashed by what it holds (so
// retargeting it changes the key), but links inside it are not followed again: a link loop costs
// one extra walk, not an endless one.
void walk(const io::Filesystem& fs, const std::string& root, const std::string& rel, const std::string& build_dir,
          bool linked, std::string& out, std::size_t& files) {
  const std::string dir = rel.empty() ? root : root + "/" + rel;
  for (const auto& name : fs.list(dir)) {
    if (io::BuildInterrupts::received()) return;  // stopped: the key is not used (no step starts)
    const std::string r = rel.empty() ? name : rel + "/" + name;
    const std::string path = root + "/" + r;
    if (path == build_dir) continue;
    if (fs.is_directory(path)) {
      const bool link = fs.is_symlink(path);
      if (link) out += "dirlink " + r + "\n";
      if (link && linked) continue;
      if (!skipped_dir(name, rel.empty())) walk(fs, root, r, build_dir, linked || link, out, files);
      continue;
    }
    if (name.ends_with(".pyc")) continue;
    auto hash = fs.exists(path) ? file_hash(fs, path) : std::nullopt;
    if (!hash) {
      // A FIFO, a socket, a device or a dangling link: named, never read (a FIFO would block).
      out += (fs.exists(path) ? "special " : "dangling ") + r + "\n";
      continue;
    }
    out += fmt::format("file {} {} {:016x}\n", r, hash->first, hash->second);
    ++files;
  }
}

// 2: the wheel's content hash in the manifest's first line, links followed, special files named.
constexpr std::string_view kManifestHead = "kiln wheel cache 2\n";

}  // namespace

WheelKey wheel_key(const WheelInputs& p, const io::Seams& s) {
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
    if (k != "MAX_JOBS") env[k] = core::replace_all(v, p.build_dir, "<build>");
  std::vector<std::string> names = core::compile_variables();  // core/build_names
  for (const auto& k : p.knobs)
    if (!k.cmake) names.push_back(k.name);
  for (const auto& n : names)
    if (!env.count(n))
      if (auto v = s.env.get(n)) env[n] = *v;
  for (const auto& [k, v] : env) m += "env " + k + "=" + v + "\n";
  for (const auto& k : p.knobs)
    if (k.cmake && !k.value.empty()) m += "define " + k.name + "=" + k.value + "\n";
  WheelKey key;
  walk(s.fs, p.project_dir, "", p.build_dir, false, m, key.files);
  key.hex = fnv128_hex(m);
  key.manifest = std::move(m);
  return key;
}

std::string wheel_cache_root(const std::string& cache_dir, const io::Environment& env) {
  if (!cache_dir.empty()) return cache_dir + "/kiln-wheels";
  const std::string user = io::kiln_user_cache(env);
  return user.empty() ? "" : user + "/wheels";
}

std::optional<CachedWheel> find_cached_wheel(io::Filesystem& fs, const std::string& root, const WheelKey& key) {
  if (root.empty() || !is_wheel_key(key.hex)) return std::nullopt;
  const std::string base = root + "/" + key.hex;
  // Never through a link: the cache's files are its own, not something a link points at.
  if (fs.is_symlink(base + ".manifest") || fs.is_symlink(base + ".whl")) {
    drop_wheel(fs, root, key.hex);
    return std::nullopt;
  }
  auto manifest = fs.read(base + ".manifest");
  if (!manifest) return std::nullopt;
  // "wheel NAME SIZE HASH" then the inputs: the inputs must be these very ones (not only the hash).
  const auto eol = manifest->find('\n');
  const std::string head = manifest->substr(0, eol);
  if (head.rfind("wheel ", 0) != 0 || eol == std::string::npos ||
      manifest->compare(eol + 1, std::string::npos, key.manifest) != 0)
    return std::nullopt;
  std::vector<std::string> f;
  for (size_t pos = 6; pos <= head.size();) {
    const auto sp = std::min(head.find(' ', pos), head.size());
    f.push_back(head.substr(pos, sp - pos));
    pos = sp + 1;
  }
  CachedWheel w{base + ".whl", f.empty() ? "" : f[0]};
  // The content, not only its size: a corrupt wheel of the right size would be a hit every time
  // (pip: "Bad CRC-32"). A bad entry is dropped and the build goes on without it.
  auto hash = file_hash(fs, w.path);
  if (f.size() != 3 || !hash || fmt::format("{} {:016x}", hash->first, hash->second) != f[1] + " " + f[2] ||
      w.name.find('/') != std::string::npos || !w.name.ends_with(".whl")) {
    drop_wheel(fs, root, key.hex);
    return std::nullopt;
  }
  return w;
}

bool store_wheel(io::Filesystem& fs, const std::string& root, const WheelKey& key, const std::string& wheel_path,
                 std::size_t keep) {
  if (root.empty() || !is_wheel_key(key.hex) || !fs.make_dirs(root)) return false;
  auto bytes = fs.read(wheel_path);
  if (!bytes) return false;
  const std::string name = wheel_path.substr(wheel_path.find_last_of('/') + 1);
  const std::string base = root + "/" + key.hex, tmp = fmt::format("{}.tmp-{}", base, ::getpid());
  fs.remove(base + ".manifest");
  // Written beside, checked, then renamed into place: a full disk leaves no partial .whl, and a link
  // in the entry's place is replaced, never written through.
  auto put = [&](const std::string& to, const std::string& text) {
    fs.remove(tmp);
    if (fs.write(tmp, text) && fs.size(tmp) == text.size() && io::move_file(fs, tmp, to)) return true;
    fs.remove(tmp);
    return false;
  };
  if (!put(base + ".whl", *bytes)) return false;
  // The manifest last: a reader never takes a wheel still being written.
  const std::string head = fmt::format("wheel {} {} {:016x}\n", name, bytes->size(), core::fnv1a64(*bytes));
  if (!put(base + ".manifest", head + key.manifest)) {
    fs.remove(base + ".whl");
    return false;
  }
  mark_wheel_used(fs, root, key.hex, keep);
  return true;
}

void touch_wheel(io::Filesystem& fs, const std::string& root, const WheelKey& key, std::size_t keep) {
  if (!root.empty() && is_wheel_key(key.hex)) mark_wheel_used(fs, root, key.hex, keep);
}

}  // namespace kiln::launch
