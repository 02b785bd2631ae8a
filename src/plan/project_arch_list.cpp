#include "plan/project_arch_list.hpp"

#include <fmt/format.h>

#include "core/arch_spec.hpp"
#include "core/launcher_env.hpp"

namespace kiln::plan {

void route_suffixed_targets_of_project_lists(Plan& p, const std::vector<read::ArchParser>& parsers,
                                             const std::string& cmake_call) {
  if (!p.cuda()) return;
  core::TargetSet suffixed;
  for (const auto& t : p.targets)
    if (t.arch.variant != core::Variant::none) suffixed.add(t);
  if (p.prune_archs && p.wraps_compilers() && cmake_call.empty()) {
    // kiln's launcher replaces whatever the project derives from its list: say so once per list.
    for (const auto& k : p.knobs.knobs) {
      if (k.role != read::knob_roles::kArchList || k.origin != read::KnobOrigin::kiln ||
          k.name == "TORCH_CUDA_ARCH_LIST")
        continue;
      p.notes.push_back(fmt::format(
          "the project takes its architectures from {} ({}), set to {}{}; kiln's nvcc launcher compiles exactly {} "
          "in each unit in place of the flags the project makes of it ({}any PTX it adds for its newest entry is "
          "not compiled beside it); --keep-project-archs compiles the project's list",
          k.name, k.where, k.value,
          suffixed.empty() ? "" : " in its default's spelling, which has no place for " + core::format_cmake(suffixed),
          core::format_cmake(p.targets), suffixed.empty() ? "" : "its SASS for " + k.value + " and "));
    }
    return;
  }
  if (suffixed.empty()) return;
  for (const auto& k : p.knobs.knobs) {
    if (k.role != read::knob_roles::kArchList || k.origin != read::KnobOrigin::kiln || k.name == "TORCH_CUDA_ARCH_LIST")
      continue;
    std::string parsed;
    for (const auto& a : parsers)
      if (a.var == k.name && !a.suffix_ok && !a.sites.empty())
        parsed = fmt::format(", converts parts of each entry with int() ({}: {}),", a.sites.front(), a.text);
    const bool added = p.wraps_compilers() && cmake_call.empty();
    if (added) {
      core::TargetSet extra = suffixed;
      if (auto had = p.env.find(std::string(core::launcher_vars::kExtraArchs)); had != p.env.end())
        if (auto prev = core::parse_cmake(had->second, {})) extra.add(*prev);
      p.env[std::string(core::launcher_vars::kExtraArchs)] = core::format_cmake(extra);
    }
    p.notes.push_back(fmt::format(
        "the project takes its architectures from {} ({}){} and kiln sets it to {} in its default's spelling, which "
        "has no place for {}: {}",
        k.name, k.where, parsed, k.value, core::format_cmake(suffixed),
        added ? "kiln's nvcc launcher adds " + core::format_cmake(suffixed) + " to each device compile"
              : fmt::format("kiln cannot add them to this build{}; give {} in the project's spelling with --knob to "
                            "build them",
                            cmake_call.empty()
                                ? ""
                                : " (the build runs CMake itself, " + cmake_call + ", which picks its own nvcc)",
                            k.name)));
  }
}

}  // namespace kiln::plan
