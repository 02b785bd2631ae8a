#include "launch/wheel_index.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>

#include "io/file_chunks.hpp"
#include "io/file_lock.hpp"

namespace kiln::launch {
namespace {

// The index's lock, if it came within a few seconds (after that the index is rewritten anyway:
// it is rebuilt from the entries on disk when it loses one).
io::FileLock index_lock(const std::string& root) {
  return io::FileLock(root + "/index.lock", {.wait = std::chrono::seconds(5)});
}

void remove_entry(io::Filesystem& fs, const std::string& root, const std::string& hex) {
  if (!is_wheel_key(hex)) return;
  fs.remove(root + "/" + hex + ".manifest");  // first: the entry stops being complete
  fs.remove(root + "/" + hex + ".whl");
}

// The index's keys, with the complete entries on disk it does not list put first (oldest).
std::vector<std::string> current_order(const io::Filesystem& fs, const std::string& root) {
  std::vector<std::string> order = parse_wheel_index(fs.read(root + "/index").value_or(""));
  std::vector<std::string> unlisted;
  for (const auto& name : fs.list(root)) {
    if (!name.ends_with(".manifest")) continue;
    const std::string hex = name.substr(0, name.size() - 9);
    if (is_wheel_key(hex) && std::find(order.begin(), order.end(), hex) == order.end()) unlisted.push_back(hex);
  }
  order.insert(order.begin(), unlisted.begin(), unlisted.end());
  return order;
}

void write_index(io::Filesystem& fs, const std::string& root, const std::vector<std::string>& order) {
  std::string text;
  for (const auto& h : order) text += h + "\n";
  // Written beside and renamed: a reader never sees half an index.
  const std::string tmp = root + "/index.tmp-" + std::to_string(::getpid());
  fs.remove(tmp);
  if (fs.write(tmp, text) && !io::move_file(fs, tmp, root + "/index")) fs.remove(tmp);
}

}  // namespace

bool is_wheel_key(const std::string& s) {
  return s.size() == 32 && s.find_first_not_of("0123456789abcdef") == std::string::npos;
}

std::vector<std::string> parse_wheel_index(const std::string& text) {
  std::vector<std::string> out;
  for (size_t pos = 0; pos < text.size();) {
    auto eol = text.find('\n', pos);
    std::string line = text.substr(pos, eol == std::string::npos ? std::string::npos : eol - pos);
    if (is_wheel_key(line) && std::find(out.begin(), out.end(), line) == out.end()) out.push_back(line);
    pos = eol == std::string::npos ? text.size() : eol + 1;
  }
  return out;
}

void mark_wheel_used(io::Filesystem& fs, const std::string& root, const std::string& hex, std::size_t keep) {
  const auto lock = index_lock(root);
  auto order = current_order(fs, root);
  order.erase(std::remove(order.begin(), order.end(), hex), order.end());
  order.push_back(hex);
  while (order.size() > std::max<std::size_t>(1, keep)) {
    remove_entry(fs, root, order.front());
    order.erase(order.begin());
  }
  write_index(fs, root, order);
}

void drop_wheel(io::Filesystem& fs, const std::string& root, const std::string& hex) {
  const auto lock = index_lock(root);
  remove_entry(fs, root, hex);
  auto order = current_order(fs, root);
  order.erase(std::remove(order.begin(), order.end(), hex), order.end());
  write_index(fs, root, order);
}

}  // namespace kiln::launch
