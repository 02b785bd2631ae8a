#include "plan/ledger_place.hpp"

#include <fmt/format.h>

#include <stdlib.h>

#include <filesystem>

#include "core/fnv.hpp"
#include "io/private_folder.hpp"
#include "io/user_cache.hpp"

namespace kiln::plan {

LedgerPlace machine_ledger_place(const io::Filesystem& fs, const io::Environment& env, unsigned uid) {
  auto absolute = [&](const char* name) -> std::string {
    auto v = env.get(name);
    return v && !v->empty() && v->front() == '/' ? *v : std::string();
  };
  std::string dir = absolute("KILN_LEDGER_DIR");
  if (dir.empty()) dir = absolute("XDG_RUNTIME_DIR").empty() ? "" : absolute("XDG_RUNTIME_DIR") + "/kiln";
  if (dir.empty()) dir = fmt::format("/tmp/kiln-{}", uid);
  // The cgroup path, not its limits: processes of one cgroup share its memory.
  const auto cgroup = fs.read_head("/proc/self/cgroup", 4096).value_or("");
  const auto file = fmt::format("ledger-{:016x}", core::fnv1a64(cgroup));
  LedgerPlace place{dir + "/" + file, ""};
  if (!dynamic_cast<const io::RealFilesystem*>(&fs)) return place;
  const auto problem = io::private_folder_problem(dir, uid);
  if (problem.empty()) return place;
  // Another user's folder would let them hold this user's builds with forged reservations.
  std::string mine = io::kiln_user_cache(env);
  if (!mine.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(mine, ec);  // the check below says what is wrong with it
    mine += "/ledger";
  }
  if (mine.empty() || !io::private_folder_problem(mine, uid).empty()) {
    char tmpl[] = "/tmp/kiln-ledger-XXXXXX";
    mine = ::mkdtemp(tmpl) ? tmpl : "";
  }
  place.path = mine.empty() ? "" : mine + "/" + file;
  place.warning = fmt::format(
      "the ledger folder {} is not private ({}): {}", dir, problem,
      mine.empty() ? "no private one could be made, so compiles run ungoverned" : "using " + mine + " instead");
  return place;
}

}  // namespace kiln::plan
