#pragma once
// The filesystem seam: everything kiln reads or lists goes through Filesystem so detectors and the
// planner can be tested against an in-memory tree (tests/support/fakes) or a temporary folder.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kiln::io {

class Filesystem {
public:
  virtual ~Filesystem() = default;
  virtual bool exists(const std::string& path) const = 0;
  virtual bool is_directory(const std::string& path) const = 0;
  virtual bool is_executable(const std::string& path) const = 0;
  virtual bool is_symlink(const std::string& path) const {
    (void)path;
    return false;
  }
  // Whole file as text, nullopt when it cannot be read. A real file is read only when it is a
  // regular file (a FIFO would block, /dev/zero never ends) of at most kReadMaxBytes.
  virtual std::optional<std::string> read(const std::string& path) const = 0;
  // What `path` is when it is there but not a regular file ("a FIFO (named pipe)", "a character
  // device"), after links; "" for a regular file or nothing. Fakes hold regular files only.
  virtual std::string special_kind(const std::string& path) const {
    (void)path;
    return {};
  }
  // The first `n` bytes (fewer if the file is shorter): for magic-number checks on large binaries.
  virtual std::optional<std::string> read_head(const std::string& path, size_t n) const {
    auto r = read(path);
    if (r && r->size() > n) r->resize(n);
    return r;
  }
  // Size in bytes, nullopt when it cannot be read (the default reads the file; real files stat).
  virtual std::optional<std::uint64_t> size(const std::string& path) const {
    auto r = read(path);
    if (!r) return std::nullopt;
    return r->size();
  }
  // Names (not paths) in a directory, sorted; empty when it is not a directory.
  virtual std::vector<std::string> list(const std::string& dir) const = 0;
  virtual bool write(const std::string& path, const std::string& content) = 0;
  virtual bool make_dirs(const std::string& path) = 0;
  // Creates (or replaces) `link` pointing at `target`.
  virtual bool symlink(const std::string& target, const std::string& link) {
    (void)target, (void)link;
    return false;
  }
  // Removes one file (not a folder); true when it is gone afterwards.
  virtual bool remove(const std::string& path) { return !exists(path); }
  // Moves one file to `to` (replacing what is there) within a file system; true when it moved.
  virtual bool rename(const std::string& from, const std::string& to) {
    (void)from, (void)to;
    return false;
  }
  // Whether this user can create a file in the folder `dir`. Tried, not asked: access(2) says yes
  // to root whatever the mode, and a folder that is not ours or is mounted read-only says so only
  // when written.
  virtual bool can_create_in(const std::string& dir) { return is_directory(dir); }
  // Whether two paths name one file or folder (a symlink or `..` in one of them); the spelling
  // when either is missing.
  virtual bool same_file(const std::string& a, const std::string& b) const { return a == b; }
};

// The most Filesystem::read returns of one file (a kept wheel is the biggest kiln reads whole).
inline constexpr std::uint64_t kReadMaxBytes = std::uint64_t{1} << 30;
// What kiln reads of a project's own build files (CMakeLists.txt, setup.py, pyproject.toml) and of
// the records and logs a build folder holds, at most.
inline constexpr std::uint64_t kProjectFileMaxBytes = std::uint64_t{16} << 20;
inline constexpr std::uint64_t kBuildRecordMaxBytes = std::uint64_t{256} << 20;

// Why kiln will not read `path` whole (issue 34, case 6): "PATH: a FIFO (named pipe), not a file
// kiln reads" or "PATH: 3.7 GB, more than the 16 MiB kiln reads of such a file"; nullopt when it
// may, or when the file is absent.
std::optional<std::string> read_refusal(const Filesystem& fs, const std::string& path, std::uint64_t max_bytes);

class RealFilesystem final : public Filesystem {
public:
  bool exists(const std::string& path) const override;
  bool is_directory(const std::string& path) const override;
  bool is_executable(const std::string& path) const override;
  bool is_symlink(const std::string& path) const override;
  std::optional<std::string> read(const std::string& path) const override;
  std::optional<std::string> read_head(const std::string& path, size_t n) const override;
  std::string special_kind(const std::string& path) const override;
  std::optional<std::uint64_t> size(const std::string& path) const override;
  std::vector<std::string> list(const std::string& dir) const override;
  bool write(const std::string& path, const std::string& content) override;
  bool make_dirs(const std::string& path) override;
  bool symlink(const std::string& target, const std::string& link) override;
  bool remove(const std::string& path) override;
  bool rename(const std::string& from, const std::string& to) override;
  bool can_create_in(const std::string& dir) override;
  bool same_file(const std::string& a, const std::string& b) const override;
};

}  // namespace kiln::io
