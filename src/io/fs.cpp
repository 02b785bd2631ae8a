#include "io/fs.hpp"

#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

namespace kiln::io {
namespace stdfs = std::filesystem;

bool RealFilesystem::exists(const std::string& path) const {
  std::error_code ec;
  return stdfs::exists(path, ec);
}
bool RealFilesystem::is_directory(const std::string& path) const {
  std::error_code ec;
  return stdfs::is_directory(path, ec);
}
bool RealFilesystem::is_executable(const std::string& path) const {
  std::error_code ec;
  return stdfs::is_regular_file(path, ec) && ::access(path.c_str(), X_OK) == 0;
}
bool RealFilesystem::is_symlink(const std::string& path) const {
  std::error_code ec;
  return stdfs::is_symlink(path, ec);
}
std::optional<std::string> RealFilesystem::read(const std::string& path) const {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) return std::nullopt;
  return ss.str();
}
std::optional<std::string> RealFilesystem::read_head(const std::string& path, size_t n) const {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::string buf(n, '\0');
  in.read(buf.data(), static_cast<std::streamsize>(n));
  buf.resize(static_cast<size_t>(in.gcount()));
  return buf;
}

std::optional<std::uint64_t> RealFilesystem::size(const std::string& path) const {
  std::error_code ec;
  auto n = stdfs::file_size(path, ec);
  if (ec) return std::nullopt;
  return n;
}

std::vector<std::string> RealFilesystem::list(const std::string& dir) const {
  std::vector<std::string> names;
  std::error_code ec;
  for (stdfs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
    names.push_back(it->path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}
bool RealFilesystem::write(const std::string& path, const std::string& content) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << content;
  // Checked after the flush and the close: on a full disk the buffered tail fails only there.
  out.flush();
  if (!out) return false;
  out.close();
  return !out.fail();
}
bool RealFilesystem::remove(const std::string& path) {
  std::error_code ec;
  if (stdfs::is_directory(path, ec)) return false;
  stdfs::remove(path, ec);
  return !stdfs::exists(path, ec);
}
bool RealFilesystem::make_dirs(const std::string& path) {
  std::error_code ec;
  stdfs::create_directories(path, ec);
  return !ec;
}

bool RealFilesystem::symlink(const std::string& target, const std::string& link) {
  std::error_code ec;
  stdfs::remove(link, ec);
  stdfs::create_symlink(target, link, ec);
  return !ec;
}

bool RealFilesystem::can_create_in(const std::string& dir) {
  std::string probe = dir + "/.kiln-write-probe-XXXXXX";
  const int fd = ::mkstemp(probe.data());
  if (fd < 0) return false;
  ::close(fd);
  ::unlink(probe.c_str());
  return true;
}

static std::string parent_of(const std::string& p) {
  auto pos = p.find_last_of('/');
  if (pos == std::string::npos || pos == 0) return "/";
  return p.substr(0, pos);
}

void FakeFilesystem::add_file(const std::string& path, std::string content, bool executable) {
  files_[path] = File{std::move(content), executable};
  for (auto d = parent_of(path); d != "/"; d = parent_of(d)) dirs_.emplace(d, true);
}
void FakeFilesystem::add_dir(const std::string& path) {
  for (auto d = path; d != "/" && !d.empty(); d = parent_of(d)) dirs_.emplace(d, true);
}
void FakeFilesystem::set_read_only(const std::string& dir) {
  add_dir(dir);
  dirs_[dir] = false;
}
bool FakeFilesystem::can_create_in(const std::string& dir) {
  auto it = dirs_.find(dir);
  return it != dirs_.end() && it->second;
}
bool FakeFilesystem::exists(const std::string& path) const { return files_.count(path) || dirs_.count(path); }
bool FakeFilesystem::is_directory(const std::string& path) const { return dirs_.count(path) > 0; }
bool FakeFilesystem::is_executable(const std::string& path) const {
  auto it = files_.find(path);
  return it != files_.end() && it->second.executable;
}
std::optional<std::string> FakeFilesystem::read(const std::string& path) const {
  auto it = files_.find(path);
  if (it == files_.end()) return std::nullopt;
  return it->second.content;
}
std::vector<std::string> FakeFilesystem::list(const std::string& dir) const {
  std::set<std::string> names;
  const std::string prefix = dir.back() == '/' ? dir : dir + "/";
  auto take = [&](const std::string& p) {
    if (p.rfind(prefix, 0) != 0) return;
    auto rest = p.substr(prefix.size());
    if (!rest.empty()) names.insert(rest.substr(0, rest.find('/')));
  };
  for (const auto& [p, f] : files_) take(p);
  for (const auto& [p, d] : dirs_) take(p);
  return {names.begin(), names.end()};
}
bool FakeFilesystem::write(const std::string& path, const std::string& content) {
  if (auto d = dirs_.find(parent_of(path)); d != dirs_.end() && !d->second) return false;
  add_file(path, content);
  return true;
}
bool FakeFilesystem::make_dirs(const std::string& path) {
  add_dir(path);
  return true;
}
bool FakeFilesystem::remove(const std::string& path) {
  files_.erase(path);
  return true;
}

}  // namespace kiln::io
