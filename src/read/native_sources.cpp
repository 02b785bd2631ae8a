#include "read/native_sources.hpp"

#include <fmt/format.h>

#include "core/text.hpp"
#include "read/project_files.hpp"

namespace kiln::read {

std::string NativeSources::summary() const {
  std::string names;
  for (const auto& f : first) names += (names.empty() ? "" : ", ") + f;
  if (count > static_cast<int>(first.size())) names += ", ...";
  return fmt::format("{}{} file{} ({}{})", count, truncated ? "+" : "", count == 1 ? "" : "s", names,
                     cuda ? fmt::format("; {} CUDA", cuda) : std::string());
}

NativeSources find_native_sources(const io::Filesystem& fs, const std::string& project_dir) {
  NativeSources out;
  out.truncated = !walk_project_files(fs, project_dir, [&](const std::string& relative, const std::string&) {
    const bool cu = core::ends_with(relative, ".cu");
    if (!cu && !core::ends_with(relative, ".cpp") && !core::ends_with(relative, ".cc") &&
        !core::ends_with(relative, ".cxx") && !core::ends_with(relative, ".c"))
      return true;
    ++out.count;
    out.cuda += cu;
    if (out.first.size() < 3) out.first.push_back(relative);
    return true;
  });
  return out;
}

}  // namespace kiln::read
