#include "report/arch_times.hpp"

#include "core/text.hpp"
#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <map>

namespace kiln::report {
namespace {

// nvcc names the source as it was given: absolute from CMake, relative to the build folder when
// ccache's base_dir rewrote it (../../proj/a.cu); the graph has it absolute.
bool same_file(const std::string& graph_path, const std::string& nvcc_path, const std::string& build_dir) {
  if (graph_path == nvcc_path) return true;
  if (nvcc_path.empty() || nvcc_path[0] == '/') return false;
  if (!build_dir.empty() && build_dir[0] == '/' &&
      (std::filesystem::path(build_dir) / nvcc_path).lexically_normal().string() == graph_path)
    return true;
  std::string rest = nvcc_path;
  while (rest.rfind("../", 0) == 0 || rest.rfind("./", 0) == 0) rest.erase(0, rest.find('/') + 1);
  return core::ends_with(graph_path, "/" + rest);
}

}  // namespace

// Time per architecture: measured by nvcc --time when the build wrote it; else the exec log's
// arch count splits a unit evenly (an estimate); else it cannot be told.
void arch_times(const ProfileInput& in, Profile& p) {
  {
    std::map<int, ArchTime> by_arch;
    for (auto& u : p.units) {
      if (u.phases.archs.empty()) continue;
      u.arch_ms.clear();
      for (const auto& [a, ph] : u.phases.archs) {
        u.arch_ms[a] = ph.device_ms + ph.ptxas_ms;
        auto& at = by_arch[a];
        at.arch = a;
        at.ms += ph.device_ms + ph.ptxas_ms;
        ++at.units;
      }
      u.host_ms = u.phases.front_end_ms + u.phases.host_ms + u.phases.link_ms + u.phases.other_ms;
    }
    for (auto& [k, a] : by_arch) p.arch_times.push_back(a);
    if (!p.arch_times.empty()) p.arch_method = "nvcc --time, recorded per unit by kiln exec";
  }
  if (p.arch_times.empty() && in.nvcc && !in.nvcc->units.empty()) {
    std::map<int, ArchTime> by_arch;
    // Only compiles of this build count: the file also holds CMake's compiler checks and older builds.
    for (const auto& nu : in.nvcc->units) {
      bool matched = false;
      for (auto& u : p.units) {
        const bool same_source = !u.source.empty() && same_file(u.source, nu.source, in.build_dir);
        const bool same_name = u.source.empty() && (core::ends_with(u.name, "/" + core::base_name(nu.source) + ".o") ||
                                                    core::base_name(u.name) == core::base_name(nu.source) + ".o");
        if (u.kind == UnitKind::cuda && (same_source || same_name)) {
          u.arch_ms = nu.device_ms;
          u.host_ms = nu.host_ms;
          if (u.source.empty()) u.source = nu.source;
          matched = true;
        }
      }
      if (!matched) continue;
      for (const auto& [arch, ms] : nu.device_ms) {
        auto& a = by_arch[arch];
        a.arch = arch;
        a.ms += ms;
        ++a.units;
      }
    }
    for (auto& [k, a] : by_arch) p.arch_times.push_back(a);
    if (p.arch_times.empty())
      p.notes.push_back("kiln-nvcc-time.csv names no CUDA unit of this build");
    else
      p.arch_method = "nvcc --time";
  }
  if (p.arch_times.empty()) {
    bool any = false;
    for (auto& u : p.units)
      if (u.archs > 0) {
        any = true;
        u.per_arch_estimate_ms = static_cast<double>(u.duration_ms() - u.waited_ms) / u.archs;
      }
    if (any) {
      p.arch_method =
          "even split of each CUDA unit's time over its archs (an estimate: which arch costs more cannot be told)";
    } else {
      bool cuda = std::any_of(p.units.begin(), p.units.end(), [](const Unit& u) { return u.kind == UnitKind::cuda; });
      if (cuda)
        p.notes.push_back(
            fmt::format("time per architecture cannot be told from .ninja_log; rebuild with "
                        "-D CMAKE_CUDA_FLAGS=--time={}/kiln-nvcc-time.csv to have nvcc measure it",
                        in.build_dir.empty() ? "BUILD" : in.build_dir));
    }
  }
}

}  // namespace kiln::report
