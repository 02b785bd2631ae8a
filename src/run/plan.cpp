#include "run/plan.hpp"

#include <fmt/format.h>

#include <set>

#include "core/arch_spec.hpp"
#include "core/compat.hpp"
#include "core/cuda_archs.hpp"
#include "probe/nvcc.hpp"
#include "probe/spec_context.hpp"

namespace kiln::run {
namespace {

tl::unexpected<PlanError> usage(std::string m) { return tl::unexpected(PlanError{std::move(m), true}); }
tl::unexpected<PlanError> env_error(std::string m) { return tl::unexpected(PlanError{std::move(m), false}); }

// The fewest targets that run each GPU natively; when the toolkit is older than a GPU, the newest
// SASS of its major that nvcc builds, else PTX of the newest architecture below it.
core::TargetSet targets_for_gpus(const std::vector<int>& ccs, const probe::NvccInfo& nvcc, std::vector<std::string>& notes) {
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
      notes.push_back(fmt::format("nvcc {} is older than compute capability {}; adding {} PTX so the driver JIT-compiles it",
                                  nvcc.version_text, core::cc_string(cc), below->compute()));
    }
  }
  return set;
}

}  // namespace

tl::expected<Plan, PlanError> make_plan(const BuildRequest& req, const io::Seams& s, probe::GpuQuery& gpu_query,
                                        const probe::MachineInfo& machine) {
  Plan p;
  p.project_dir = req.project_dir;
  p.build_dir = req.build_dir.empty() ? req.project_dir + "/build-kiln" : req.build_dir;
  p.build_type = req.build_type;
  p.cmake_defines = req.cmake_defines;
  if (!s.fs.exists(p.project_dir + "/CMakeLists.txt"))
    return usage(fmt::format("{} has no CMakeLists.txt; kiln build needs a CMake project directory", p.project_dir));
  p.project_kind = "cmake";

  // Tools first: nothing else matters without them.
  auto cmake = io::which(s, "cmake");
  if (!cmake) return env_error("cmake not found on PATH; install it (apt-get install cmake) or add it to PATH");
  auto ninja = io::which(s, "ninja");
  if (!ninja) return env_error("ninja not found on PATH; install it (apt-get install ninja-build) or add it to PATH");
  p.cmake = *cmake;
  p.ninja = *ninja;
  auto nvcc = probe::probe_nvcc(s);
  if (!nvcc) return env_error("nvcc not found (looked in $CUDA_HOME/bin, PATH, /usr/local/cuda/bin); set CUDA_HOME");
  p.nvcc = nvcc->path;
  p.nvcc_version = nvcc->version_text;
  if (req.ccache) {
    if (auto cc = io::which(s, "ccache"))
      p.ccache = *cc;
    else
      p.notes.push_back("ccache not found: building without a compile cache (apt-get install ccache to enable it)");
  }
  p.cache_dir = req.cache_dir;

  // GPUs named on the command line are what the build is verified against.
  for (const auto& name : req.gpus) {
    auto m = core::GpuTable::get().lookup(name);
    if (!m) return usage(m.error().message);
    p.gpus.push_back(*m);
  }

  // Architectures, in order of precedence.
  core::SpecContext ctx;
  auto parse = [&](const std::string& spec, const std::string& from) -> tl::expected<core::TargetSet, PlanError> {
    auto syntax = core::parse_syntax(from);
    if (!syntax) return usage("--from '" + from + "': expected torch, cmake, nvcc or auto");
    auto r = core::parse_spec(spec, *syntax, probe::spec_context_for(spec, s));
    if (!r) return usage(r.error().message);
    return *r;
  };
  if (!req.archs.empty()) {
    auto r = parse(req.archs, req.archs_from);
    if (!r) return tl::unexpected(r.error());
    p.targets = *r;
    p.arch_source = "--archs";
    p.arch_reason = "given on the command line";
  } else if (!p.gpus.empty()) {
    std::vector<int> ccs;
    for (const auto& g : p.gpus) ccs.push_back(g.cc);
    p.targets = targets_for_gpus(ccs, *nvcc, p.notes);
    p.arch_source = "--gpu";
    p.arch_reason = "one native target per distinct compute capability of the named GPUs";
  } else if (auto env = s.env.get("TORCH_CUDA_ARCH_LIST"); env && !env->empty()) {
    auto r = parse(*env, "torch");
    if (!r) return usage("TORCH_CUDA_ARCH_LIST: " + r.error().message);
    p.targets = *r;
    p.arch_source = "TORCH_CUDA_ARCH_LIST";
    p.arch_reason = "from the environment";
  } else {
    probe::LocalGpus local = gpu_query.query();
    std::vector<int> ccs;
    for (const auto& g : local.gpus)
      if (g.cc) ccs.push_back(g.cc);
    if (!ccs.empty()) {
      p.targets = targets_for_gpus(ccs, *nvcc, p.notes);
      p.arch_source = "local GPUs";
      p.arch_reason = "the GPUs on this machine (" + local.source + ")";
      for (const auto& g : local.gpus)
        p.gpus.push_back(core::GpuModel{g.name, g.cc, "", "", {}});
    } else {
      auto r = parse(core::ArchCatalog::get().default_archs(), "torch");
      if (!r) return env_error("data/cuda_archs.toml default: " + r.error().message);
      p.targets = *r;
      p.arch_source = "default";
      p.arch_reason = "no --gpu, --archs, TORCH_CUDA_ARCH_LIST or local GPU; kiln's default covers Ampere to Blackwell "
                      "data-centre GPUs natively with PTX for newer ones";
    }
  }
  if (p.targets.empty()) return usage("the architecture list is empty");

  // Every target must be buildable by this nvcc: say which are not and which CUDA builds them.
  std::vector<std::string> unsupported;
  for (const auto& t : p.targets)
    if (!nvcc->can_build(t.arch))
      unsupported.push_back(fmt::format("{} (built by {})", t.arch.sm(), core::ArchCatalog::get().support_range(t.arch)));
  if (!unsupported.empty()) {
    std::string list;
    for (const auto& u : unsupported) list += (list.empty() ? "" : ", ") + u;
    return env_error(fmt::format("nvcc {} at {} cannot build {}; drop them or use a CUDA release that builds them",
                                 nvcc->version_text, nvcc->path, list));
  }

  // Named GPUs that the chosen targets do not run on are a planning error, caught before hours of compiling.
  for (const auto& g : p.gpus) {
    auto c = core::coverage(p.targets, g.cc);
    if (c.verdict == core::Verdict::none)
      return usage(fmt::format("the targets do not run on {} (cc {}): {}", g.name, core::cc_string(g.cc), c.why));
  }

  // Each target is one device compilation inside every nvcc job, so all of them size the job.
  p.jobs = decide_jobs(machine, static_cast<int>(p.targets.size()));
  if (req.jobs) {
    if (*req.jobs < 1) return usage(fmt::format("--jobs {}: must be at least 1", *req.jobs));
    p.jobs_forced = true;
    if (*req.jobs > p.jobs.by_memory)
      p.notes.push_back(fmt::format("--jobs {} exceeds what memory allows ({}): compiles may be killed for memory",
                                    *req.jobs, p.jobs.by_memory));
    p.jobs.jobs = *req.jobs;
  }
  return p;
}

std::vector<std::string> Plan::configure_argv() const {
  std::vector<std::string> argv = {cmake,
                                   "-S", project_dir,
                                   "-B", build_dir,
                                   "-G", "Ninja",
                                   "-DCMAKE_MAKE_PROGRAM=" + ninja,
                                   "-DCMAKE_BUILD_TYPE=" + build_type,
                                   "-DCMAKE_CUDA_COMPILER=" + nvcc,
                                   "-DCMAKE_CUDA_ARCHITECTURES=" + core::format_cmake(targets)};
  for (const char* lang : {"C", "CXX", "CUDA"})
    argv.push_back(fmt::format("-DCMAKE_{}_COMPILER_LAUNCHER={}", lang, ccache));
  for (const auto& d : cmake_defines) argv.push_back("-D" + d);
  return argv;
}

std::vector<std::string> Plan::build_argv() const {
  return {ninja, "-C", build_dir, "-j", std::to_string(jobs.jobs)};
}

std::map<std::string, std::string> Plan::child_env(const io::Environment& env) const {
  auto e = env.all();
  const std::string nvcc_dir = nvcc.substr(0, nvcc.find_last_of('/'));
  e["PATH"] = nvcc_dir + ":" + e["PATH"];
  if (!ccache.empty()) {
    e["CCACHE_STATSLOG"] = ccache_log_path();
    // Paths under the project hash as relative ones, so a second build folder hits the same cache.
    e["CCACHE_BASEDIR"] = project_dir;
    if (!cache_dir.empty()) e["CCACHE_DIR"] = cache_dir;
  }
  return e;
}

}  // namespace kiln::run
