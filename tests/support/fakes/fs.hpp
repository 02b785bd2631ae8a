#pragma once
// An in-memory Filesystem for tests: the planner and detectors read a tree the test wrote.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "io/fs.hpp"

namespace kiln::io {

// Files by absolute path; directories are implied by the files under them or added explicitly.
class FakeFilesystem final : public Filesystem {
public:
  void add_file(const std::string& path, std::string content, bool executable = false);
  void add_dir(const std::string& path);
  // A folder (added if missing) where nothing can be created: can_create_in and write say no.
  void set_read_only(const std::string& dir);
  bool exists(const std::string& path) const override;
  bool is_directory(const std::string& path) const override;
  bool is_executable(const std::string& path) const override;
  std::optional<std::string> read(const std::string& path) const override;
  std::vector<std::string> list(const std::string& dir) const override;
  bool write(const std::string& path, const std::string& content) override;
  bool make_dirs(const std::string& path) override;
  bool remove(const std::string& path) override;
  bool rename(const std::string& from, const std::string& to) override;
  bool can_create_in(const std::string& dir) override;

private:
  struct File {
    std::string content;
    bool executable = false;
  };
  std::map<std::string, File> files_;
  std::map<std::string, bool> dirs_{{"/", true}};  // folder -> files can be created in it
};
}  // namespace kiln::io
