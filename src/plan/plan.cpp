#include "plan/plan.hpp"

#include <nlohmann/json.hpp>

#include <fmt/format.h>

#include <set>

#include "core/json_text.hpp"
#include "core/arch_spec.hpp"
#include "core/compat.hpp"
#include "core/cuda_archs.hpp"
#include "probe/nvcc.hpp"
#include "core/data_toml.hpp"
#include "probe/spec_context.hpp"
#include "plan/python_env.hpp"
#include "read/pytorch_options.hpp"
#include "read/torch_package.hpp"

namespace kiln::plan {
namespace {

tl::unexpected<PlanError> usage(std::string m) { return tl::unexpected(PlanError{std::move(m), true}); }
tl::unexpected<PlanError> env_error(std::string m) { return tl::unexpected(PlanError{std::move(m), false}); }

// The fewest targets that run each GPU natively; when the toolkit is older than a GPU, the newest
// SASS of its major that nvcc builds, else PTX of the newest architecture below it.
// A GPU nothing of this nvcc runs on (a V100 under CUDA 13) goes to `unbuildable`.
core::TargetSet targets_for_gpus(const std::vector<int>& ccs, const probe::NvccInfo& nvcc, std::vector<std::string>& notes,
                                 std::vector<int>& unbuildable) {
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
    } else {
      unbuildable.push_back(cc);
    }
  }
  return set;
}

// "nvcc 13.0 at /usr/local/cuda/bin/nvcc cannot build for V100 (sm_70: built by CUDA 9.0 to 12.9); ..."
std::string unbuildable_message(const std::vector<int>& ccs, const std::vector<core::GpuModel>& gpus,
                                const probe::NvccInfo& nvcc) {
  std::string what;
  for (int cc : ccs) {
    std::string names;
    for (const auto& g : gpus)
      if (g.cc == cc) names += (names.empty() ? "" : ", ") + g.name;
    const core::Arch a{cc};
    what += fmt::format("{}{} ({}: built by {})", what.empty() ? "" : "; ", names.empty() ? a.sm() : names, a.sm(),
                        core::ArchCatalog::get().support_range(a));
  }
  return fmt::format("nvcc {} at {} cannot build for {}; use a CUDA release that builds it (set CUDA_HOME to it)",
                     nvcc.version_text, nvcc.path, what);
}

}  // namespace

namespace {

struct Profile {
  std::string build_type, archs;
  std::map<std::string, std::string> set;
};

tl::expected<Profile, PlanError> load_profile(const std::string& name) {
  static const toml::table t = data::load_toml("profiles.toml");
  const toml::table* p = t[name].as_table();
  if (!p) {
    std::string names;
    for (const auto& [k, v] : t) names += (names.empty() ? "" : ", ") + std::string(k.str());
    return usage(fmt::format("--profile '{}': expected one of {}", name, names));
  }
  Profile out;
  out.build_type = (*p)["build_type"].value_or(std::string("Release"));
  out.archs = (*p)["archs"].value_or(std::string("gpus"));
  if (auto set = (*p)["set"].as_table())
    for (const auto& [k, v] : *set) {
      if (auto b = v.value<bool>()) out.set[std::string(k.str())] = *b ? "1" : "0";
      else out.set[std::string(k.str())] = v.value_or(std::string());
    }
  return out;
}

tl::expected<std::map<std::string, std::string>, PlanError> parse_sets(const std::vector<std::string>& sets) {
  std::map<std::string, std::string> out;
  for (const auto& kv : sets) {
    auto eq = kv.find('=');
    if (eq == std::string::npos || eq == 0) return usage(fmt::format("--set '{}': expected KEY=VALUE", kv));
    out[kv.substr(0, eq)] = kv.substr(eq + 1);
  }
  return out;
}

// The project's own switches (data/project_knobs.toml): read from its build files, decided from the
// plan, then handed to the build as environment variables or -D entries. --set and -D win.
tl::expected<void, PlanError> plan_knobs(Plan& p, const BuildRequest& req, const io::Seams& s,
                                         const std::map<std::string, std::string>& sets) {
  read::KnobContext kc;
  kc.cuda = p.cuda();
  kc.no_knobs = req.no_knobs;
  kc.jobs = p.jobs.jobs;
  kc.targets = static_cast<int>(p.targets.size());
  for (const auto& t : p.targets)
    if (t.kind == core::CodeKind::sass) kc.sass.push_back(t.arch.number);
  for (const auto& kv : req.knobs) {
    auto eq = kv.find('=');
    if (eq == std::string::npos || eq == 0) return usage(fmt::format("--knob '{}': expected NAME=VALUE", kv));
    kc.overrides[kv.substr(0, eq)] = kv.substr(eq + 1);
  }
  kc.env = &s.env;
  // A PyTorch checkout's switches are its build options (pytorch_options.toml), planned above.
  if (p.kind == read::ProjectKind::pytorch) return {};
  p.knobs = read::decide_knobs(read::read_project(s.fs, p.project_dir, p.kind == read::ProjectKind::cmake), kc);
  if (p.cuda() && !p.prune_archs && !p.knobs.hardcoded_archs.empty())
    p.notes.push_back("setup.py hard-codes nvcc architectures (" + p.knobs.hardcoded_archs +
                      "); nvcc compiles those as well as the planned targets: add --prune-archs to keep only the plan's");
  if (p.cuda() && !p.knobs.cmake_archs.empty())
    p.notes.push_back("the project sets its own architectures (" + p.knobs.cmake_archs +
                      "), which beat the planned CMAKE_CUDA_ARCHITECTURES for what it covers");
  auto defined = [&](const std::string& name) {
    for (const auto& d : p.cmake_defines)
      if (d.rfind(name + "=", 0) == 0 || d.rfind(name + ":", 0) == 0) return true;
    return false;
  };
  for (const auto& k : p.knobs.knobs) {
    if (!k.sets()) continue;
    if (k.cmake) {
      if (!defined(k.name)) p.cmake_defines.push_back(k.name + "=" + k.value);
    } else if (!sets.count(k.name)) {
      p.env[k.name] = k.value;
    }
  }
  return {};
}

// The value of -D NAME=V or -D NAME:TYPE=V among `defines` (the last one wins, as in CMake).
std::optional<std::string> define_value(const std::vector<std::string>& defines, const std::string& name) {
  std::optional<std::string> v;
  for (const auto& d : defines) {
    const auto eq = d.find('=');
    const std::string key = d.substr(0, std::min(eq, d.find(':')));
    if (eq != std::string::npos && key == name) v = d.substr(eq + 1);
  }
  return v;
}

// The environment's list, read as the build reads it: CMake takes CUDAARCHS as the default of
// CMAKE_CUDA_ARCHITECTURES (a plain CMake project: `cmake_reads`), torch reads TORCH_CUDA_ARCH_LIST.
std::optional<std::pair<std::string, std::string>> environment_archs(const io::Environment& env, bool cmake_reads) {
  std::vector<std::string> vars{"TORCH_CUDA_ARCH_LIST"};
  if (cmake_reads) vars.insert(vars.begin(), "CUDAARCHS");
  for (const auto& var : vars)
    if (auto v = env.get(var); v && !v->empty()) return std::pair{var, *v};
  return std::nullopt;
}

}  // namespace

tl::expected<Plan, PlanError> make_plan(const BuildRequest& req, const io::Seams& s, probe::GpuQuery& gpu_query,
                                        const probe::MachineInfo& machine) {
  Plan p;
  p.project_dir = req.project_dir;
  p.project_reason = req.project_reason;
  p.build_dir = req.build_dir.empty() ? req.project_dir + "/build-kiln" : req.build_dir;
  p.kind = read::detect_project_kind(s.fs, p.project_dir);
  p.project_kind = read::to_string(p.kind);
  if (p.kind == read::ProjectKind::unknown)
    return usage(fmt::format("{} has no CMakeLists.txt, setup.py or pyproject.toml; kiln builds CMake projects, "
                             "PyTorch checkouts and torch extensions", p.project_dir));
  Profile profile;
  if (!req.profile.empty()) {
    auto pr = load_profile(req.profile);
    if (!pr) return tl::unexpected(pr.error());
    profile = *pr;
    p.profile = req.profile;
  }
  p.build_type = !req.build_type.empty() ? req.build_type : !profile.build_type.empty() ? profile.build_type : "Release";
  // CMake takes any word and builds it without optimisation flags: a typo would cost the whole speed.
  static const std::set<std::string> kBuildTypes{"Release", "RelWithDebInfo", "Debug", "MinSizeRel"};
  if (!kBuildTypes.count(p.build_type))
    return usage(fmt::format("--build-type '{}': expected Release, RelWithDebInfo, Debug or MinSizeRel", p.build_type));
  auto sets = parse_sets(req.sets);
  if (!sets) return tl::unexpected(sets.error());

  // Tools first: nothing else matters without them.
  if (p.kind == read::ProjectKind::cmake) {
    auto cmake = io::which(s, "cmake");
    if (!cmake) return env_error("cmake not found on PATH; install it (apt-get install cmake) or add it to PATH");
    p.cmake = *cmake;
    p.generator = req.generator;
    if (p.generator == "Ninja") {
      auto ninja = io::which(s, "ninja");
      if (!ninja) return env_error("ninja not found on PATH; install it (apt-get install ninja-build) or add it to PATH");
      p.ninja = *ninja;
    } else if (p.generator == "Unix Makefiles") {
      if (!io::which(s, "make")) return env_error("make not found on PATH; install it (apt-get install make) or use Ninja");
    } else {
      return usage(fmt::format("generator '{}': expected Ninja or \"Unix Makefiles\"", p.generator));
    }
    for (const auto& [k, v] : *sets) p.cmake_defines.push_back(k + "=" + v);
  } else {
    std::string py = !req.python.empty() ? req.python : s.env.get("PYTHON").value_or("");
    auto found = io::which(s, py.empty() ? "python3" : py);
    if (!found) return env_error(fmt::format("{} not found; pass --python or set PYTHON", py.empty() ? "python3" : py));
    p.python = *found;
    p.pip = req.pip;
    if (auto ninja = io::which(s, "ninja")) p.ninja = *ninja;
    else p.notes.push_back("ninja not on PATH: torch.utils.cpp_extension falls back to slow serial builds");
  }
  for (const auto& d : req.cmake_defines) p.cmake_defines.push_back(d);
  if (p.kind == read::ProjectKind::cmake && read::uses_torch_package(s.fs, p.project_dir)) {
    auto pkg = read::locate_torch_package(s, req.python, p.cmake_defines);
    if (!pkg) return env_error(pkg.error());
    p.torch_dir = pkg->dir;
    p.torch_dir_how = pkg->how;
  }

  // PyTorch's options, resolved with their dependencies and the libraries that exist.
  bool want_cuda = profile.archs != "none";
  if (p.kind == read::ProjectKind::pytorch) {
    read::OptionRequest oreq;
    oreq.profile_set = profile.set;
    oreq.profile_name = p.profile;
    oreq.user_set = *sets;
    oreq.environment = s.env.all();
    oreq.set_unknown = req.set_unknown;
    oreq.library_check = req.library_check;
    oreq.platform = req.platform ? *req.platform : read::host_platform();
    auto opts = read::resolve_pytorch_options(s.fs, p.project_dir, oreq);
    if (!opts) return usage(opts.error().message);
    p.options = opts->options;
    for (auto& n : opts->notes) p.notes.push_back(n);
    for (const auto& o : p.options)
      if (o.name == "USE_CUDA") want_cuda = o.on;
  } else if (auto it = sets->find("USE_CUDA"); it != sets->end() && read::parse_bool(it->second) == false) {
    want_cuda = false;
  }

  std::optional<probe::NvccInfo> nvcc;
  if (want_cuda) {
    nvcc = probe::probe_nvcc(s);
    if (!nvcc) return env_error("nvcc not found (looked in $CUDA_HOME/bin, PATH, /usr/local/cuda/bin); set CUDA_HOME");
    p.nvcc = nvcc->path;
    p.nvcc_version = nvcc->version_text;
  }
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

  if (want_cuda) {
    auto parse = [&](const std::string& spec, const std::string& from) -> tl::expected<core::TargetSet, PlanError> {
      auto syntax = core::parse_syntax(from);
      if (!syntax) return usage("--from '" + from + "': expected torch, cmake, nvcc or auto");
      auto r = core::parse_spec(spec, *syntax, probe::spec_context_for(spec, s));
      if (!r) return usage(r.error().message);
      return *r;
    };
    std::vector<int> unbuildable;
    auto from_local = [&]() -> bool {
      probe::LocalGpus local = gpu_query.query();
      std::vector<int> ccs;
      for (const auto& g : local.gpus)
        if (g.cc) ccs.push_back(g.cc);
      if (ccs.empty()) return false;
      p.targets = targets_for_gpus(ccs, *nvcc, p.notes, unbuildable);
      p.arch_source = "local GPUs";
      p.arch_reason = "the GPUs on this machine (" + local.source + ")";
      if (p.gpus.empty())
        for (const auto& g : local.gpus) p.gpus.push_back(core::GpuModel{g.name, g.cc, "", "", {}});
      return true;
    };
    const bool profile_list = !profile.archs.empty() && profile.archs != "gpus" && profile.archs != "local";
    // -D CMAKE_CUDA_ARCHITECTURES=70 would override the plan's list behind its back: it is the plan.
    const auto d_archs = p.kind == read::ProjectKind::cmake ? define_value(req.cmake_defines, "CMAKE_CUDA_ARCHITECTURES")
                                                            : std::nullopt;
    if (d_archs && !req.archs.empty())
      return usage("the architectures are given twice, by --archs and by -D CMAKE_CUDA_ARCHITECTURES; keep one");
    const auto env_archs = environment_archs(s.env, p.kind == read::ProjectKind::cmake && p.torch_dir.empty());
    if (!req.archs.empty() || d_archs) {
      auto r = d_archs ? parse(*d_archs, "cmake") : parse(req.archs, req.archs_from);
      if (!r) return usage((d_archs ? "-D CMAKE_CUDA_ARCHITECTURES: " : "") + r.error().message);
      p.targets = *r;
      p.arch_source = d_archs ? "-D CMAKE_CUDA_ARCHITECTURES" : "--archs";
      p.arch_reason = "given on the command line";
    } else if (profile_list) {
      auto r = parse(profile.archs, "torch");
      if (!r) return env_error("data/profiles.toml " + p.profile + ": " + r.error().message);
      p.targets = *r;
      p.arch_source = "profile " + p.profile;
      p.arch_reason = "the profile's wide list, with PTX of the newest for GPUs not yet released";
    } else if (!p.gpus.empty()) {
      std::vector<int> ccs;
      for (const auto& g : p.gpus) ccs.push_back(g.cc);
      p.targets = targets_for_gpus(ccs, *nvcc, p.notes, unbuildable);
      p.arch_source = "--gpu";
      p.arch_reason = "one native target per distinct compute capability of the named GPUs";
    } else if (profile.archs == "gpus") {
      return usage("profile " + p.profile + " builds for the named GPUs only: add --gpu NAME");
    } else if (profile.archs == "local") {
      if (!from_local()) return usage("profile " + p.profile + " builds for this machine's GPU, and none was found: add --gpu NAME");
    } else if (env_archs) {
      auto r = parse(env_archs->second, env_archs->first == "CUDAARCHS" ? "cmake" : "torch");
      if (!r) return usage(env_archs->first + ": " + r.error().message);
      p.targets = *r;
      p.arch_source = env_archs->first;
      p.arch_reason = "from the environment";
    } else if (!from_local()) {
      auto r = parse(core::ArchCatalog::get().default_archs(), "torch");
      if (!r) return env_error("data/cuda_archs.toml default: " + r.error().message);
      p.targets = *r;
      p.arch_source = "default";
      p.arch_reason = "no --gpu, --archs, TORCH_CUDA_ARCH_LIST, CUDAARCHS or local GPU; kiln's default covers Ampere to Blackwell "
                      "data-centre GPUs natively with PTX for newer ones";
    }
    if (!unbuildable.empty()) return env_error(unbuildable_message(unbuildable, p.gpus, *nvcc));
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
  } else {
    p.arch_source = "none";
    p.arch_reason = "CUDA is off";
  }

  if (p.libtorch() && p.cuda()) {
    // Torch's CMake builds for TORCH_CUDA_ARCH_LIST and switches CMAKE_CUDA_ARCHITECTURES off.
    auto torch = core::format_torch(p.targets);
    if (!torch)
      return usage("find_package(Torch) takes its architectures from TORCH_CUDA_ARCH_LIST, which cannot say these targets: " +
                   torch.error().message);
    p.torch_arch_list = *torch;
    p.notes.push_back("find_package(Torch): Torch's cuda.cmake sets CMAKE_CUDA_ARCHITECTURES OFF and adds -gencode flags "
                      "from TORCH_CUDA_ARCH_LIST; kiln passes -DTORCH_CUDA_ARCH_LIST=" + p.torch_arch_list);
  }

  // Each target is one device compilation inside every nvcc job, so all of them size the job.
  p.jobs = decide_jobs(machine, static_cast<int>(p.targets.size()));
  p.prune_archs = req.prune_archs;
  p.kiln_exe = req.kiln_exe;
  p.cores = std::max(1, machine.usable_cores());
  if (p.kind == read::ProjectKind::extension) p.real_cxx = io::which(s, s.env.get("CXX").value_or("c++")).value_or("c++");
  if (req.governor && !req.kiln_exe.empty()) {
    // The governor admits each compile by its expected memory, so Ninja may run one job per core.
    p.governor = true;
    p.mem_budget_kib = req.mem_budget_kib.value_or(static_cast<std::uint64_t>(p.jobs.budget_gib * 1024 * 1024));
    if (!req.jobs) {
      p.jobs.arithmetic += fmt::format("; governor: -j {} (cores), each compile admitted while the reservations fit "
                                       "in {:.1f} GiB", p.jobs.by_cores, p.mem_budget_kib / 1048576.0);
      p.jobs.jobs = p.jobs.by_cores;
    }
    // NVCC_APPEND_FLAGS, --split-compile and --time are all there from CUDA 12.0 on.
    const bool new_nvcc = nvcc && nvcc->version && *nvcc->version >= core::CudaVersion{12, 0};
    p.split_threads = req.split_threads && new_nvcc;
    p.nvcc_time = new_nvcc;
  } else if (req.prune_archs) {
    return usage("--prune-archs rewrites nvcc flags in kiln's launcher; it cannot be combined with --no-governor");
  }
  if (req.jobs) {
    if (*req.jobs < 1) return usage(fmt::format("--jobs {}: must be at least 1", *req.jobs));
    p.jobs_forced = true;
    if (*req.jobs > p.jobs.by_memory)
      p.notes.push_back(fmt::format("--jobs {} exceeds what memory allows ({}): compiles may be killed for memory",
                                    *req.jobs, p.jobs.by_memory));
    p.jobs.jobs = *req.jobs;
  }
  if (p.kind != read::ProjectKind::cmake) {
    p.wheel_cache = req.wheel_cache && p.kind == read::ProjectKind::extension;
    p.torch_package = torch_package_dir(p, s);
    p.torch_version = torch_version_for(p, s);
    auto env = python_build_env(p, *sets);
    if (!env) return usage(env.error());
    p.env = *env;
  }
  auto knobs = plan_knobs(p, req, s, *sets);
  if (!knobs) return tl::unexpected(knobs.error());
  if (p.kind == read::ProjectKind::cmake || p.kind == read::ProjectKind::pytorch) {
    p.config = check_configuration(s.fs, p, s.fs.read(p.project_dir + "/setup.py").value_or(""));
    if (p.config.reconfigure && p.config.how.rfind("CMAKE_FRESH", 0) == 0) p.env["CMAKE_FRESH"] = "1";
  }
  return p;
}

std::vector<std::string> Plan::configure_argv() const {
  std::vector<std::string> argv = {cmake,
                                   "-S", project_dir,
                                   "-B", build_dir,
                                   "-G", generator};
  if (generator == "Ninja") argv.push_back("-DCMAKE_MAKE_PROGRAM=" + ninja);
  argv.push_back("-DCMAKE_BUILD_TYPE=" + build_type);
  argv.push_back("-DCMAKE_CUDA_COMPILER=" + nvcc);
  argv.push_back("-DCMAKE_CUDA_ARCHITECTURES=" + core::format_cmake(targets));
  std::string chain;
  for (const auto& l : launcher()) chain += (chain.empty() ? "" : ";") + l;
  for (const char* lang : {"C", "CXX", "CUDA"})
    argv.push_back(fmt::format("-DCMAKE_{}_COMPILER_LAUNCHER={}", lang, chain));
  if (libtorch()) {
    if (torch_dir_how != "-D Torch_DIR") argv.push_back("-DTorch_DIR=" + torch_dir);
    if (!torch_arch_list.empty()) argv.push_back("-DTORCH_CUDA_ARCH_LIST=" + torch_arch_list);
  }
  for (const auto& d : cmake_defines) argv.push_back("-D" + d);
  // Entries the last configure set and this one does not: CMake would keep them (run/stale_config).
  for (const auto& k : config.dropped) {
    argv.push_back("-U");
    argv.push_back(k);
  }
  return argv;
}

std::string Plan::ccache_basedir() const {
  std::string a = project_dir + "/", b = build_dir + "/";
  size_t n = 0;
  while (n < a.size() && n < b.size() && a[n] == b[n]) ++n;
  // Nothing in common but "/": then "/" it is. Paths become relative to the build folder, so two
  // build folders at the same depth still share every hit.
  std::string common = a.substr(0, a.rfind('/', n - 1));
  return common.empty() ? "/" : common;
}

std::string Plan::build_record_json() const {
  nlohmann::ordered_json j = {{"schema", 1},
                              {"kiln_build_dir", build_dir},
                              {"cores", cores},
                              {"jobs", jobs.jobs},
                              {"mem_budget_kib", governed() ? nlohmann::ordered_json(mem_budget_kib) : nlohmann::ordered_json(nullptr)},
                              {"split_threads", split_threads},
                              {"exec_log", governed() ? nlohmann::ordered_json(exec_log_path()) : nlohmann::ordered_json(nullptr)},
                              {"ccache_stats", ccache.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(ccache_log_path())}};
  return core::dump_json(std::move(j), 2) + "\n";  // paths are bytes: never throw on them
}

std::vector<std::string> Plan::launcher() const {
  std::vector<std::string> l;
  if (governed()) l = {kiln_exe, "exec", "--"};
  if (!ccache.empty()) l.push_back(ccache);
  return l;
}

std::vector<std::string> Plan::build_argv() const {
  switch (kind) {
    case read::ProjectKind::pytorch:
      if (pip) return {python, "-m", "pip", "install", "-e", ".", "--no-build-isolation", "--no-deps", "-v"};
      return {python, "setup.py", "develop"};
    case read::ProjectKind::extension:
      // The project's backend builds the wheel once; `pip install .` would run it twice, each
      // run importing torch. The install step (run/wheel_build) never reaches for an index.
      return {python, wheel_script_path(), wheel_dir()};
    default:
      if (generator != "Ninja") return {cmake, "--build", build_dir, "-j", std::to_string(jobs.jobs)};
      return {ninja, "-C", build_dir, "-j", std::to_string(jobs.jobs)};
  }
}

std::map<std::string, std::string> Plan::child_env(const io::Environment& env) const {
  auto e = env.all();
  for (const auto& [k, v] : this->env) e[k] = v;
  if (!nvcc.empty()) e["PATH"] = nvcc.substr(0, nvcc.find_last_of('/')) + ":" + e["PATH"];
  if (libtorch() && !torch_arch_list.empty()) e["TORCH_CUDA_ARCH_LIST"] = torch_arch_list;
  if (!ccache.empty()) {
    e["CCACHE_STATSLOG"] = ccache_log_path();
    // Paths under the base hash as relative ones, so a second build folder hits the same cache. It
    // must hold the build folder too: generated headers live there.
    e["CCACHE_BASEDIR"] = ccache_basedir();
    if (!cache_dir.empty()) e["CCACHE_DIR"] = cache_dir;
  }
  if (wraps_compilers()) {
    // What the c++ and nvcc links run: the launchers after `kiln exec --`, then the compiler.
    std::string chain;
    for (const auto& l : launcher())
      if (l != kiln_exe && l != "exec" && l != "--") chain += l + '\x1f';
    e["KILN_WRAP_CXX"] = chain + real_cxx;
    e["KILN_WRAP_NVCC"] = chain + nvcc;
  }
  if (governed()) {
    e["KILN_EXEC_LOG"] = exec_log_path();
    e["KILN_LEDGER"] = build_dir + "/.kiln/ledger";
    e["KILN_MEM_HISTORY"] = build_dir + "/.kiln/mem";
    e["KILN_MEM_BUDGET_KIB"] = std::to_string(mem_budget_kib);
    if (prune_archs) e["KILN_PRUNE_ARCHS"] = core::format_cmake(targets);
    e["KILN_CORES"] = std::to_string(cores);
    if (split_threads) e["KILN_SPLIT"] = "1";
    if (nvcc_time) e["KILN_NVCC_TIME"] = build_dir + "/.kiln/time";
  }
  // ccache hashes the working directory of a compile with -g (hash_dir), and Python's own CFLAGS
  // carry -g into every torch extension's host .cpp: a fresh copy of the project then misses on
  // each of them. kiln's paths are already relative to CCACHE_BASEDIR, so the folder adds nothing
  // but misses; the cost is that a hit's debug info may name the folder of the build that filled
  // the cache (ccache manual, "Compiling in different directories"). A user's own setting wins.
  if (!ccache.empty() && !e.count("CCACHE_HASHDIR") && !e.count("CCACHE_NOHASHDIR")) e["CCACHE_NOHASHDIR"] = "1";
  return e;
}

}  // namespace kiln::plan
