#include "binary/file_walk.hpp"

#include "binary/mapped_file.hpp"
#include "core/text.hpp"

#include <atomic>
#include <filesystem>
#include <thread>

namespace kiln::binary {
namespace {

bool is_symlink(const io::Filesystem& fs, const std::string& p) {
  if (!dynamic_cast<const io::RealFilesystem*>(&fs)) return false;
  std::error_code ec;
  return std::filesystem::is_symlink(p, ec);
}

void walk(const std::string& dir, const io::Filesystem& fs, WalkResult& out, int depth) {
  if (depth > 64) return;  // a symlink loop or an absurd tree
  for (const auto& name : fs.list(dir)) {
    const std::string p = dir == "/" ? "/" + name : dir + "/" + name;
    if (is_symlink(fs, p)) continue;
    if (fs.is_directory(p)) {
      walk(p, fs, out, depth + 1);
    } else if (auto kind = dynamic_cast<const io::RealFilesystem*>(&fs) ? special_file_kind(p) : std::string();
               !kind.empty()) {
      out.special.emplace_back(p, kind);
    } else {
      out.files.push_back(p);
    }
  }
}

}  // namespace

WalkResult walk_paths(const std::vector<std::string>& paths, const io::Filesystem& fs) {
  WalkResult r;
  for (auto p : paths) {
    p = core::without_trailing_slashes(std::move(p));
    if (!fs.exists(p))
      r.missing.push_back(p);
    else if (fs.is_directory(p))
      walk(p, fs, r, 0);
    else
      r.files.push_back(p);
  }
  return r;
}

void parallel_for(std::size_t n, unsigned threads, const std::function<void(std::size_t)>& fn) {
  if (threads <= 1 || n <= 1) {
    for (std::size_t i = 0; i < n; ++i) fn(i);
    return;
  }
  std::atomic<std::size_t> next{0};
  std::vector<std::thread> pool;
  const unsigned k = static_cast<unsigned>(std::min<std::size_t>(threads, n));
  for (unsigned t = 0; t < k; ++t)
    pool.emplace_back([&] {
      for (std::size_t i; (i = next.fetch_add(1)) < n;) fn(i);
    });
  for (auto& t : pool) t.join();
}

}  // namespace kiln::binary
