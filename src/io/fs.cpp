#include "io/fs.hpp"

#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <filesystem>
#include <fstream>
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
namespace {

const char* kind_of(mode_t m) {
  if (S_ISFIFO(m)) return "a FIFO (named pipe)";
  if (S_ISSOCK(m)) return "a socket";
  if (S_ISCHR(m)) return "a character device";
  if (S_ISBLK(m)) return "a block device";
  if (S_ISDIR(m)) return "a folder";
  return S_ISREG(m) ? "" : "not a regular file";
}

// Reads at most `cap` bytes of a regular file; nullopt for anything else, or a longer file when
// `whole`. O_NONBLOCK: opening a FIFO must not wait for a writer (fstat then refuses it).
std::optional<std::string> read_regular(const std::string& path, std::uint64_t cap, bool whole) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return std::nullopt;
  struct stat st {};
  std::optional<std::string> out;
  if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && (!whole || static_cast<std::uint64_t>(st.st_size) <= cap)) {
    out.emplace();
    char buf[65536];
    while (out->size() < cap) {
      const ssize_t n = ::read(fd, buf, std::min<std::uint64_t>(sizeof buf, cap - out->size()));
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) out.reset();
      if (n <= 0) break;
      out->append(buf, static_cast<size_t>(n));
    }
  }
  ::close(fd);
  return out;
}

}  // namespace

std::optional<std::string> RealFilesystem::read(const std::string& path) const {
  return read_regular(path, kReadMaxBytes, true);
}
std::optional<std::string> RealFilesystem::read_head(const std::string& path, size_t n) const {
  return read_regular(path, n, false);
}
std::string RealFilesystem::special_kind(const std::string& path) const {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 ? kind_of(st.st_mode) : "";
}

std::optional<std::string> read_refusal(const Filesystem& fs, const std::string& path, std::uint64_t max_bytes) {
  if (auto kind = fs.special_kind(path); !kind.empty()) return path + ": " + kind + ", not a file kiln reads";
  const auto bytes = fs.size(path);
  if (bytes && *bytes > max_bytes)
    return path + ": " + std::to_string(*bytes) + " bytes, more than the " + std::to_string(max_bytes >> 20) +
           " MiB kiln reads of such a file";
  return std::nullopt;
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
bool RealFilesystem::rename(const std::string& from, const std::string& to) {
  std::error_code ec;
  if (!stdfs::is_regular_file(stdfs::symlink_status(from, ec))) return false;
  stdfs::rename(from, to, ec);
  return !ec;
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

bool RealFilesystem::same_file(const std::string& a, const std::string& b) const {
  std::error_code ec;
  const bool same = std::filesystem::equivalent(a, b, ec);
  return ec ? a == b : same;
}

bool RealFilesystem::can_create_in(const std::string& dir) {
  std::string probe = dir + "/.kiln-write-probe-XXXXXX";
  const int fd = ::mkstemp(probe.data());
  if (fd < 0) return false;
  ::close(fd);
  ::unlink(probe.c_str());
  return true;
}

}  // namespace kiln::io
