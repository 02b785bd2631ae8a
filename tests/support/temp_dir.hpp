#pragma once
// A real folder for what a fake cannot show (links, FIFOs, flocks, renames, a compiler's output),
// made empty for the test and removed with everything in it at its end.
#include <string>

namespace kiln::testing {

class TempDir {
public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::string& path() const { return path_; }
  // The path of `rel` inside the folder (nothing is created).
  std::string operator/(const std::string& rel) const { return path_ + "/" + rel; }
  // Writes `content` to `rel` (parent folders made), executable when asked; its path.
  std::string write(const std::string& rel, const std::string& content, bool executable = false) const;
  // Makes the folder `rel` (and its parents); its path.
  std::string mkdir(const std::string& rel) const;

private:
  std::string path_;
};

}  // namespace kiln::testing
