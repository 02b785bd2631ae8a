#include "fakes/fs.hpp"

#include <set>

namespace kiln::io {

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
bool FakeFilesystem::rename(const std::string& from, const std::string& to) {
  auto it = files_.find(from);
  if (it == files_.end()) return false;
  if (auto d = dirs_.find(parent_of(to)); d != dirs_.end() && !d->second) return false;
  File f = std::move(it->second);
  files_.erase(it);
  add_file(to, std::move(f.content), f.executable);
  return true;
}
}  // namespace kiln::io
