#include "plan/targets.hpp"

#include <fmt/format.h>

#include <set>

#include "core/arch_spec.hpp"
#include "core/compat.hpp"
#include "core/cuda_archs.hpp"
#include "probe/spec_context.hpp"

namespace kiln::plan {
namespace {

tl::unexpected<PlanError> usage(std::string m) { return tl::unexpected(PlanError{std::move(m), true}); }
tl::unexpected<PlanError> env_error(std::string m) { return tl::unexpected(PlanError{std::move(m), false}); }

tl::expected<core::TargetSet, PlanError> parse(const std::string& spec, const std::string& from, const io::Seams& s) {
  auto syntax = core::parse_syntax(from);
  if (!syntax) return usage("--from '" + from + "': expected torch, cmake, nvcc or auto");
  auto r = core::parse_spec(spec, *syntax, probe::spec_context_for(spec, s));
  if (!r) return usage(r.error().message);
  return *r;
}

// This machine's GPUs, when it has any.
bool from_local(TargetChoice& c, const probe::NvccInfo& nvcc, probe::GpuQuery& query) {
  probe::LocalGpus local = query.query();
  std::vector<int> ccs;
  for (const auto& g : local.gpus)
    if (g.cc) ccs.push_back(g.cc);
  if (ccs.empty()) return false;
  c.targets = targets_for_gpus(ccs, nvcc, c.notes);
  c.source = "local GPUs";
  c.reason = "the GPUs on this machine (" + local.source + ")";
  if (c.gpus.empty())
    for (const auto& g : local.gpus) c.gpus.push_back(core::GpuModel{g.name, g.cc, "", "", {}});
  return true;
}

// A spelled list (--archs, a profile's, the environment's, the default): its targets and why.
tl::expected<TargetChoice, PlanError> spelled(TargetChoice c, tl::expected<core::TargetSet, PlanError> parsed,
                                              std::string source, std::string reason) {
  if (!parsed) return tl::unexpected(parsed.error());
  c.targets = *parsed;
  c.source = std::move(source);
  c.reason = std::move(reason);
  return c;
}

}  // namespace

core::TargetSet targets_for_gpus(const std::vector<int>& ccs, const probe::NvccInfo& nvcc,
                                 std::vector<std::string>& notes) {
  core::TargetSet set;
  for (int cc : std::set<int>(ccs.begin(), ccs.end())) {
    core::Arch exact{cc};
    if (nvcc.can_build(exact)) {
      set.add({exact, core::CodeKind::sass});
      continue;
    }
    std::optional<core::Arch> same_major, below;
    for (const auto& a : nvcc.sass) {
      if (a.number > cc) continue;
      if (a.major() == cc / 10 && (!same_major || a.number > same_major->number)) same_major = a;
      if (!below || a.number > below->number) below = a;
    }
    if (same_major) {
      set.add({*same_major, core::CodeKind::sass});
      notes.push_back(fmt::format("nvcc {} cannot build sm_{}; {} SASS runs on it (same major)", nvcc.version_text, cc,
                                  same_major->sm()));
    } else if (below) {
      set.add({*below, core::CodeKind::ptx});
      notes.push_back(
          fmt::format("nvcc {} is older than compute capability {}; adding {} PTX so the driver JIT-compiles it",
                      nvcc.version_text, core::cc_string(cc), below->compute()));
    }
  }
  return set;
}

tl::expected<TargetChoice, PlanError> choose_targets(const TargetRequest& r, const probe::NvccInfo& nvcc,
                                                     probe::GpuQuery& local, const io::Seams& s) {
  TargetChoice c;
  c.gpus = r.gpus;
  const std::string& pa = r.profile_archs;
  const bool profile_list = !pa.empty() && pa != "gpus" && pa != "local";
  if (!r.archs.empty()) return spelled(c, parse(r.archs, r.archs_from, s), r.archs_source, "given on the command line");
  if (profile_list) {
    auto parsed = parse(pa, "torch", s);
    if (!parsed) return env_error("data/profiles.toml " + r.profile + ": " + parsed.error().message);
    return spelled(c, parsed, "profile " + r.profile,
                   "the profile's wide list, with PTX of the newest for GPUs not yet released");
  }
  if (!r.gpus.empty()) {
    std::vector<int> ccs;
    for (const auto& g : r.gpus) ccs.push_back(g.cc);
    c.targets = targets_for_gpus(ccs, nvcc, c.notes);
    c.source = "--gpu";
    c.reason = "one native target per distinct compute capability of the named GPUs";
    return c;
  }
  if (pa == "gpus") return usage("profile " + r.profile + " builds for the named GPUs only: add --gpu NAME");
  if (pa == "local") {
    if (!from_local(c, nvcc, local))
      return usage("profile " + r.profile + " builds for this machine's GPU, and none was found: add --gpu NAME");
    return c;
  }
  if (r.env_arch_list && !r.env_arch_list->empty()) {
    const bool cmake = r.env_arch_var == "CUDAARCHS";
    auto parsed = parse(*r.env_arch_list, cmake ? "cmake" : "torch", s);
    if (!parsed) return usage(r.env_arch_var + ": " + parsed.error().message);
    return spelled(c, parsed, r.env_arch_var, "from the environment");
  }
  if (from_local(c, nvcc, local)) return c;
  auto parsed = parse(core::ArchCatalog::get().default_archs(), "torch", s);
  if (!parsed) return env_error("data/cuda_archs.toml default: " + parsed.error().message);
  return spelled(
      c, parsed, "default",
      "no --gpu, --archs, TORCH_CUDA_ARCH_LIST, CUDAARCHS or local GPU; kiln's default covers Ampere to Blackwell "
      "data-centre GPUs natively with PTX for newer ones");
}

tl::expected<void, PlanError> check_targets(const core::TargetSet& targets, const std::vector<core::GpuModel>& gpus,
                                            const probe::NvccInfo& nvcc) {
  // A GPU nothing of this nvcc runs on (a V100 under CUDA 13): its sm_XX and the CUDA that builds it.
  std::string unbuildable;
  for (const auto& g : gpus)
    if (!nvcc.can_build(core::Arch{g.cc}) && core::coverage(targets, g.cc).verdict == core::Verdict::none)
      unbuildable += fmt::format("{}{} (sm_{}: built by {})", unbuildable.empty() ? "" : "; ", g.name, g.cc,
                                 core::ArchCatalog::get().support_range(core::Arch{g.cc}));
  if (!unbuildable.empty())
    return env_error(
        fmt::format("nvcc {} at {} cannot build for {}; use a CUDA release that builds it (set CUDA_HOME to it)",
                    nvcc.version_text, nvcc.path, unbuildable));
  if (targets.empty()) return usage("the architecture list is empty");
  std::string unsupported;
  for (const auto& t : targets)
    if (!nvcc.can_build(t.arch))
      unsupported += fmt::format("{}{} (built by {})", unsupported.empty() ? "" : ", ", t.arch.sm(),
                                 core::ArchCatalog::get().support_range(t.arch));
  if (!unsupported.empty())
    return env_error(fmt::format("nvcc {} at {} cannot build {}; drop them or use a CUDA release that builds them",
                                 nvcc.version_text, nvcc.path, unsupported));
  for (const auto& g : gpus) {
    auto c = core::coverage(targets, g.cc);
    if (c.verdict == core::Verdict::none)
      return usage(fmt::format("the targets do not run on {} (cc {}): {}", g.name, core::cc_string(g.cc), c.why));
  }
  return {};
}

}  // namespace kiln::plan
