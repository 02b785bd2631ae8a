#pragma once
// A missing header that an empty git submodule should have held (issue 33): the build log's -I
// folders (and -isystem, -iquote) are scanned for the project's empty submodules, so that a
// "fatal error: X: No such file or directory" is diagnosed as the submodule that was never checked
// out rather than as a package to install. The submodules come from the plan (read/gitmodules).
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kiln::diagnose {

class SubmoduleIncludes {
public:
  // Paths relative to the project ("third_party/cutlass"), as .gitmodules lists them.
  explicit SubmoduleIncludes(std::vector<std::string> empty_submodules);
  bool empty() const { return submodules_.empty(); }
  // Notes each empty submodule an include flag in `text` names (relative or absolute, or a folder
  // under it).
  void scan(std::string_view text);
  // The submodule that should have held `header`: one its path starts (third_party/x/y.h), else
  // the first one an include flag named; nullopt when none.
  std::optional<std::string> holder_of(std::string_view header) const;

private:
  std::vector<std::string> submodules_;
  std::vector<bool> included_;
};

}  // namespace kiln::diagnose
