#include "read/project_headers.hpp"

#include "core/text.hpp"
#include "read/project_files.hpp"

namespace kiln::read {

std::vector<std::string> project_headers(const io::Filesystem& fs, const std::string& project_dir) {
  std::vector<std::string> out;
  walk_project_files(fs, project_dir, [&](const std::string& relative, const std::string&) {
    for (const char* ext : {".h", ".hpp", ".hh", ".hxx", ".cuh", ".inl", ".inc", ".tcc"})
      if (core::ends_with(relative, ext)) {
        out.push_back(relative);
        break;
      }
    return true;
  });
  return out;
}

}  // namespace kiln::read
