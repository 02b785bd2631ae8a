#include "plan/ledger_place.hpp"

#include <fmt/format.h>

#include "core/fnv.hpp"

namespace kiln::plan {

std::string machine_ledger_path(const io::Filesystem& fs, const io::Environment& env, unsigned uid) {
  auto absolute = [&](const char* name) -> std::string {
    auto v = env.get(name);
    return v && !v->empty() && v->front() == '/' ? *v : std::string();
  };
  std::string dir = absolute("KILN_LEDGER_DIR");
  if (dir.empty()) dir = absolute("XDG_RUNTIME_DIR").empty() ? "" : absolute("XDG_RUNTIME_DIR") + "/kiln";
  if (dir.empty()) dir = fmt::format("/tmp/kiln-{}", uid);
  // The cgroup path, not its limits: processes of one cgroup share its memory.
  const auto cgroup = fs.read_head("/proc/self/cgroup", 4096).value_or("");
  return fmt::format("{}/ledger-{:016x}", dir, core::fnv1a64(cgroup));
}

}  // namespace kiln::plan
