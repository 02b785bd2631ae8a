#include "probe/ccache_folder.hpp"

#include "core/text.hpp"
#include "probe/run_tool.hpp"

namespace kiln::probe {

std::optional<std::string> ccache_folder_problem(io::Filesystem& fs, const std::string& folder) {
  if (folder.empty()) return std::nullopt;
  if (fs.exists(folder)) {
    if (!fs.is_directory(folder)) return "is a file, not a folder";
    if (!fs.can_create_in(folder)) return "cannot be written by this user";
    // ccache 4 writes its temporary files in DIR/tmp (its temporary_dir default) on every miss.
    const std::string tmp = folder + "/tmp";
    if (fs.exists(tmp) && !(fs.is_directory(tmp) && fs.can_create_in(tmp)))
      return "has a tmp/ this user cannot write in";
    return std::nullopt;
  }
  // Missing: ccache makes it, if it can make each missing level under the nearest existing one.
  std::string up = core::dir_name(folder);
  while (!fs.exists(up) && up != "/" && up != ".") up = core::dir_name(up);
  if (!fs.is_directory(up)) return "does not exist and cannot be made: " + up + " is a file";
  if (!fs.can_create_in(up)) return "does not exist and cannot be made in " + up + " by this user";
  return std::nullopt;
}

std::optional<std::string> ccache_folder_of(io::ProcessRunner& proc, const std::string& ccache) {
  auto r = run_tool(proc, {ccache, "--get-config", "cache_dir"});
  if (!r.ok()) return std::nullopt;
  auto dir = core::trim(r.out);
  if (dir.empty()) return std::nullopt;
  return dir;
}

}  // namespace kiln::probe
