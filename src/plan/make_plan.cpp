#include "plan/make_plan.hpp"

#include <algorithm>
#include <cctype>
#include <set>

#include <fmt/format.h>
#include <unistd.h>

#include "core/arch_spec.hpp"
#include "core/data_toml.hpp"
#include "core/fnv.hpp"
#include "core/spelling.hpp"
#include "core/text.hpp"
#include "core/torch_index.hpp"
#include "io/task_table.hpp"
#include "io/user_cache.hpp"
#include "plan/ledger_place.hpp"
#include "plan/project_arch_list.hpp"
#include "plan/python_env.hpp"
#include "plan/request_args.hpp"
#include "plan/stale_config.hpp"
#include "read/torch_requirement.hpp"
#include "plan/targets.hpp"
#include "probe/ccache_folder.hpp"
#include "probe/cmake_cache.hpp"
#include "probe/externally_managed.hpp"
#include "probe/nvcc.hpp"
#include "probe/python_modules.hpp"
#include "probe/torch_install.hpp"
#include "read/gitmodules.hpp"
#include "read/enclosing_project.hpp"
#include "read/pytorch_options.hpp"
#include "read/setup_py_ast.hpp"
#include "read/switch_words.hpp"
#include "read/torch_package.hpp"

namespace kiln::plan {
namespace {

using Sets = std::map<std::string, std::string>;
using SetupRead = tl::expected<read::SetupPyReading, std::string>;

tl::unexpected<PlanError> usage(std::string m) { return tl::unexpected(PlanError{std::move(m), true}); }
tl::unexpected<PlanError> env_error(std::string m) { return tl::unexpected(PlanError{std::move(m), false}); }

struct Profile {
  std::string build_type, archs;
  std::map<std::string, std::string> set;
};

const toml::table& profiles_table() {
  static const toml::table t = data::load_toml("profiles.toml");
  return t;
}

tl::expected<Profile, PlanError> load_profile(const std::string& name) {
  const toml::table& t = profiles_table();
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
      if (auto b = v.value<bool>())
        out.set[std::string(k.str())] = *b ? "1" : "0";
      else
        out.set[std::string(k.str())] = v.value_or(std::string());
    }
  return out;
}

// KEY=VALUE arguments (--set, --knob) as a map; `option` names the flag in the error.
tl::expected<Sets, PlanError> parse_assignments(const std::vector<std::string>& args, const char* option,
                                                const char* key) {
  Sets out;
  for (const auto& kv : args) {
    auto eq = kv.find('=');
    if (eq == std::string::npos || eq == 0) return usage(fmt::format("{} '{}': expected {}=VALUE", option, kv, key));
    out[kv.substr(0, eq)] = kv.substr(eq + 1);
  }
  return out;
}

// The project, its folders and kind. setup.py is read as Python reads it, by the interpreter the
// build will use (never executed), and that reading decides the kind and, later, the switches.
tl::expected<Plan, PlanError> start_plan(const BuildRequest& req, const io::Seams& s, SetupRead& setup) {
  Plan p;
  p.project_dir = req.project_dir;
  p.project_reason = req.project_reason;
  p.build_dir = req.build_dir.empty() ? req.project_dir + "/build-kiln" : req.build_dir;
  auto reading = read::read_project_kind(s, p.project_dir, req.python);
  setup = std::move(reading.setup);
  p.kind = reading.kind;
  if (p.kind == read::ProjectKind::unknown) {
    const auto root = read::enclosing_project(s.fs, p.project_dir, false);
    return usage(fmt::format(
        "{}: {}; kiln builds CMake projects, PyTorch checkouts and torch extensions{}", p.project_dir,
        read::describe_folder(s.fs, p.project_dir, &setup),
        root ? fmt::format(" (this folder is inside {}, which has {}: pass that folder)", root->dir, root->why)
             : std::string()));
  }
  // A folder of a CMake project (no project() of its own) builds only as a part of it: configured
  // alone it misses the root's settings and the targets of its sibling folders.
  if (p.kind == read::ProjectKind::cmake && read::calls_project(s.fs, p.project_dir) == false)
    if (const auto root = read::enclosing_project(s.fs, p.project_dir, true))
      return usage(
          fmt::format("{} is a folder of the CMake project {}: its CMakeLists.txt has no project() call, so it builds "
                      "only through the root's add_subdirectory; build {}",
                      p.project_dir, root->dir, root->dir));
  return p;
}

// The torch versions the project declares against the torch it will compile with: outside them, the
// build compiles against headers the project was not written for, and fails there if at all.
void check_torch_requirements(Plan& p, const io::Seams& s, const SetupRead& setup) {
  if (p.torch_version.empty()) return;
  auto declared = read::read_torch_requirements(s.fs, p.project_dir);
  // The versions setup.py checks in code and stops on (kaolin d52da9f8 setup.py:36, NATTEN 8c8729f4 :53).
  if (setup)
    for (const auto& c : setup->torch_checks)
      if (auto r = core::parse_requirement("torch" + c.specifier); r && !r->clauses.empty())
        declared.push_back({*r, c.where});
  for (const auto& r : read::distinct_torch_ranges(declared)) {
    if (core::requirement_met(r.requirement, p.torch_version) != false) continue;
    p.torch_unmet.push_back({r.where, r.requirement.specifier});
    p.notes.push_back(fmt::format(
        "warning: the project declares torch{} ({}), but {} has torch {}: the extension compiles against that "
        "torch's headers and may fail in them; install a torch in range ({} -m pip install 'torch{}') or pass "
        "--python with an interpreter that has one",
        r.requirement.specifier, r.where, p.python, p.torch_version, p.python, r.requirement.specifier));
  }
}

// Whether the linker finds lib<name>.so where the system keeps libraries: an op that links it
// (DeepSpeed's async_io: -laio) can build here.
std::optional<bool> linker_finds(const io::Filesystem& fs, const std::string& name) {
  for (const char* d : {"/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/usr/lib64", "/usr/lib",
                        "/usr/local/lib", "/lib/x86_64-linux-gnu", "/lib64"})
    if (fs.exists(std::string(d) + "/lib" + name + ".so")) return true;
  return false;
}

// Tools first: nothing else matters without them. CMake projects need CMake and their generator's
// tool; Python builds an interpreter (and Ninja, without which cpp_extension builds serially).
tl::expected<void, PlanError> find_build_tools(Plan& p, const BuildRequest& req, const io::Seams& s, const Sets& sets) {
  if (p.kind == read::ProjectKind::cmake) {
    auto cmake = io::which(s, "cmake");
    if (!cmake) return env_error("cmake not found on PATH; install it (apt-get install cmake) or add it to PATH");
    p.cmake = *cmake;
    p.generator = req.generator;
    if (p.generator == "Ninja") {
      auto ninja = io::which(s, "ninja");
      if (!ninja)
        return env_error("ninja not found on PATH; install it (apt-get install ninja-build) or add it to PATH");
      p.ninja = *ninja;
    } else if (p.generator == "Unix Makefiles") {
      if (!io::which(s, "make"))
        return env_error("make not found on PATH; install it (apt-get install make) or use Ninja");
    } else {
      return usage(fmt::format("generator '{}': expected Ninja or \"Unix Makefiles\"", p.generator));
    }
    for (const auto& [k, v] : sets) p.cmake_defines.push_back(k + "=" + v);
  } else {
    std::string py = !req.python.empty() ? req.python : s.env.get("PYTHON").value_or("");
    auto found = io::which(s, py.empty() ? "python3" : py);
    if (!found) return env_error(fmt::format("{} not found; pass --python or set PYTHON", py.empty() ? "python3" : py));
    p.python = *found;
    p.pip = req.pip;
    if (auto ninja = io::which(s, "ninja"))
      p.ninja = *ninja;
    else
      p.notes.push_back("ninja not on PATH: torch.utils.cpp_extension falls back to slow serial builds");
  }
  for (const auto& d : req.cmake_defines) p.cmake_defines.push_back(d);
  if (p.kind == read::ProjectKind::cmake && read::uses_torch_package(s.fs, p.project_dir)) {
    auto pkg = read::locate_torch_package(s, req.python, p.cmake_defines);
    if (!pkg) return env_error(pkg.error());
    p.torch_dir = pkg->dir;
    p.torch_dir_how = pkg->how;
  }
  return {};
}

// PyTorch's options, resolved with their dependencies and the libraries that exist. Returns
// whether the build uses CUDA: a profile without architectures, USE_CUDA off in the options or in
// --set turn it off.
tl::expected<bool, PlanError> plan_options(Plan& p, const BuildRequest& req, const io::Seams& s, const Profile& profile,
                                           const Sets& sets) {
  bool want_cuda = profile.archs != "none";
  if (p.kind != read::ProjectKind::pytorch) {
    auto it = sets.find("USE_CUDA");
    return want_cuda && !(it != sets.end() && read::parse_bool(it->second) == false);
  }
  read::OptionRequest oreq;
  oreq.profile_set = profile.set;
  oreq.profile_name = p.profile;
  oreq.user_set = sets;
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
  return want_cuda;
}

// nvcc when the build uses CUDA, ccache when asked for, and the GPUs named on the command line
// (what the build is verified against).
tl::expected<std::optional<probe::NvccInfo>, PlanError> find_compilers(Plan& p, const BuildRequest& req,
                                                                       const io::Seams& s, bool want_cuda) {
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
  // An unusable ccache folder fails every compile: found here, and the build goes on without ccache
  // (a wrapper must never break a build).
  if (!p.ccache.empty()) {
    std::string folder = !req.cache_dir.empty() ? req.cache_dir : s.env.get("CCACHE_DIR").value_or("");
    if (folder.empty()) folder = probe::ccache_folder_of(s.proc, p.ccache).value_or("");
    if (auto problem = probe::ccache_folder_problem(s.fs, folder)) {
      p.notes.push_back("ccache folder " + folder + " " + *problem +
                        ": building without ccache (fix it, or pass --cache-dir with a folder you can write)");
      p.ccache.clear();
    }
  }
  for (const auto& name : req.gpus) {
    auto m = core::GpuTable::get().lookup(name);
    if (!m) return usage(m.error().message);
    // A GPU that comes only with an Arm CPU: x86-64 files never load there (verify says wrong-cpu).
    const std::string cpu = req.platform ? req.platform->processor : read::host_platform().processor;
    if (m->aarch64_only && (cpu == "x86_64" || cpu == "amd64"))
      return usage(fmt::format(
          "--gpu '{}': {} is an aarch64 ({}) GPU and this build is for x86-64, whose files never load there; build on "
          "the {} itself, or name the GPU of the x86-64 machine that will run it",
          name, m->name, m->segment == "jetson" ? "Jetson" : "Grace",
          m->segment == "jetson" ? "Jetson" : "Grace machine"));
    p.gpus.push_back(*m);
  }
  return nvcc;
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

// The targets (plan/targets), and for libtorch projects their TORCH_CUDA_ARCH_LIST spelling.
tl::expected<void, PlanError> plan_targets(Plan& p, const BuildRequest& req, const io::Seams& s, const Profile& profile,
                                           const probe::NvccInfo& nvcc, probe::GpuQuery& gpu_query) {
  TargetRequest tr{req.archs, req.archs_from, p.profile, profile.archs, p.gpus, s.env.get("TORCH_CUDA_ARCH_LIST")};
  // CMake reads CUDAARCHS as the default of CMAKE_CUDA_ARCHITECTURES (a plain CMake project).
  if (auto v = s.env.get("CUDAARCHS"); v && !v->empty() && p.kind == read::ProjectKind::cmake && p.torch_dir.empty())
    tr.env_arch_list = *v, tr.env_arch_var = "CUDAARCHS";
  // -D CMAKE_CUDA_ARCHITECTURES=70 would override the plan's list behind its back: it is the plan.
  if (auto d = p.kind == read::ProjectKind::cmake ? define_value(req.cmake_defines, "CMAKE_CUDA_ARCHITECTURES")
                                                  : std::nullopt) {
    if (!req.archs.empty())
      return usage("the architectures are given twice, by --archs and by -D CMAKE_CUDA_ARCHITECTURES; keep one");
    tr.archs = *d, tr.archs_from = "cmake", tr.archs_source = "-D CMAKE_CUDA_ARCHITECTURES";
  }
  auto chosen = choose_targets(tr, nvcc, gpu_query, s);
  if (!chosen) return tl::unexpected(chosen.error());
  p.targets = chosen->targets;
  p.arch_source = chosen->source;
  p.arch_reason = chosen->reason;
  p.gpus = chosen->gpus;
  for (auto& n : chosen->notes) p.notes.push_back(n);
  auto checked = check_targets(p.targets, p.gpus, nvcc);
  if (!checked) return checked;
  if (p.libtorch()) {
    // Torch's CMake builds for TORCH_CUDA_ARCH_LIST and switches CMAKE_CUDA_ARCHITECTURES off.
    auto torch = core::format_torch(p.targets);
    if (!torch)
      return usage(
          "find_package(Torch) takes its architectures from TORCH_CUDA_ARCH_LIST, which cannot say these targets: " +
          torch.error().message);
    p.torch_arch_list = *torch;
    p.notes.push_back(
        "find_package(Torch): Torch's cuda.cmake sets CMAKE_CUDA_ARCHITECTURES OFF and adds -gencode flags "
        "from TORCH_CUDA_ARCH_LIST; kiln passes -DTORCH_CUDA_ARCH_LIST=" +
        p.torch_arch_list);
  }
  return {};
}

// Jobs, and the launcher: under the governor each compile is admitted by its expected memory, so
// Ninja may run one job per core; --jobs overrides both.
tl::expected<void, PlanError> plan_jobs_and_launcher(Plan& p, const BuildRequest& req, const io::Seams& s,
                                                     const probe::MachineInfo& machine,
                                                     const std::optional<probe::NvccInfo>& nvcc) {
  // Each target is one device compilation inside every nvcc job, so all of them size the job.
  p.jobs = decide_jobs(machine, static_cast<int>(p.targets.size()));
  p.prune_archs = req.prune_archs;
  p.kiln_exe = req.kiln_exe;
  p.cores = std::max(1, machine.usable_cores());
  if (p.kind == read::ProjectKind::extension) {
    p.real_cxx = io::which(s, s.env.get("CXX").value_or("c++")).value_or("c++");
    // cpp_extension (distutils) splits CXX on blanks, so "/my proj/build-kiln/.kiln/bin/c++" would
    // run "/my": the links then live in kiln's user cache, one folder per build folder.
    auto blank = [](const std::string& path) { return path.find_first_of(" \t\n") != std::string::npos; };
    if (blank(p.wrapper_dir())) {
      const std::string user = io::kiln_user_cache(s.env);
      if (user.empty() || blank(user))
        return usage(fmt::format(
            "the build folder {} holds a blank, which torch's cpp_extension cannot take in CXX, and kiln's user "
            "cache ({}) has no blank-free place for its compiler links; pass --build-dir without a blank",
            p.build_dir, user.empty() ? "none" : user));
      p.links_dir = fmt::format("{}/bin/{:016x}", user, core::fnv1a64(p.build_dir));
    }
  }
  if (req.governor && !req.kiln_exe.empty()) {
    p.mem_budget_kib = req.mem_budget_kib.value_or(static_cast<std::uint64_t>(p.jobs.budget_gib * 1024 * 1024));
    auto place = machine_ledger_place(s.fs, s.env, ::getuid());
    p.ledger = place.path;
    if (!place.warning.empty()) p.notes.push_back(place.warning);
    p.governor = !p.ledger.empty();
    if (!req.jobs) {
      p.jobs.arithmetic += fmt::format(
          "; governor: -j {} (cores), each compile admitted while the reservations fit "
          "in {:.1f} GiB",
          p.jobs.by_cores, p.mem_budget_kib / 1048576.0);
      p.jobs.jobs = p.jobs.by_cores;
    }
    // NVCC_APPEND_FLAGS, --split-compile and --time are all there from CUDA 12.0 on.
    const bool new_nvcc = nvcc && nvcc->version && *nvcc->version >= core::CudaVersion{12, 0};
    p.split_threads = req.split_threads && new_nvcc;
    p.nvcc_time = new_nvcc;
    // Sharing a compile's weight lowers a thread's nice again when its siblings end: only where
    // that is allowed (io::can_lower_nice), which is tried rather than guessed from the uid.
    p.cpu_share = req.cpu_share && io::can_lower_nice();
    if (p.cpu_share) p.jobs.arithmetic += "; one CPU weight per compile, shared by its running threads";
  } else {
    // Pruning happens in kiln's launcher, which --no-governor leaves out: the project's own
    // architecture flags compile as they are (plan_knobs says which, where it knows them).
    p.prune_archs = false;
  }
  if (req.jobs) {
    if (*req.jobs < 1) return usage(fmt::format("--jobs {}: must be at least 1", *req.jobs));
    p.jobs_forced = true;
    p.jobs_source = req.jobs_source.empty() ? "--jobs" : req.jobs_source;
    if (*req.jobs > p.jobs.by_memory)
      p.notes.push_back(
          fmt::format("--jobs {} (from {}) exceeds what memory allows ({}): compiles may be killed for memory",
                      *req.jobs, p.jobs_source, p.jobs.by_memory));
    p.jobs.jobs = *req.jobs;
  }
  return {};
}

// A --knob that no switch kiln read and no top-level build file names is most likely a typo: said,
// with the nearest name they hold; set as given all the same (a module setup.py imports, or C++
// code, may read it).
void note_unread_knobs(Plan& p, const std::map<std::string, std::string>& overrides, const io::Filesystem& fs) {
  std::set<std::string> words = read::switch_words(fs, p.project_dir);
  for (const auto& k : p.knobs.knobs)
    if (!overrides.count(k.name) || k.origin != read::KnobOrigin::knob_option || !k.where.empty()) words.insert(k.name);
  const std::vector<std::string> names(words.begin(), words.end());
  for (const auto& [name, value] : overrides) {
    if (words.count(name)) continue;
    const auto near = core::closest(name, names);
    p.notes.push_back(fmt::format("warning: --knob {}={}: no build file of the project names {}{}; set as given", name,
                                  value, name, near ? fmt::format(" (did you mean {}?)", *near) : std::string()));
  }
}

// A CPU-only torch: cpp_extension cannot compile CUDA code against it. Where a switch or a GPU probe
// gates the CUDA code, kiln leaves it at the project's default (the CPU code); where none does
// (nvdiffrast 253ac4fc: its CUDAExtension is unconditional), the build fails, and the note says so.
void note_cpu_only_torch(Plan& p, const std::string& version) {
  const bool gated =
      !p.knobs.probes.empty() || std::any_of(p.knobs.knobs.begin(), p.knobs.knobs.end(), [](const auto& k) {
        return k.role == read::knob_roles::kCudaEnable || k.role == read::knob_roles::kCudaSkip || k.effect == "cuda" ||
               k.effect == "select";
      });
  const std::string install = core::cuda_torch_install(p.nvcc_version);
  if (gated)
    p.notes.push_back(fmt::format(
        "torch {} ({}) is a CPU-only build: cpp_extension cannot compile CUDA code against it, so the project's "
        "CUDA switches stay at their defaults; for its CUDA code, install a CUDA build of torch ({})",
        version, p.torch_package, install));
  else
    p.notes.push_back(fmt::format(
        "torch {} ({}) is a CPU-only build: cpp_extension cannot compile CUDA code against it, and the project "
        "builds its CUDA extension under no switch kiln found, at {}; so the build is expected to fail (a "
        "CUDAExtension links c10_cuda and torch_cuda, which a CPU-only torch lacks); install a CUDA build of torch "
        "({})",
        version, p.torch_package, p.knobs.cuda_evidence.empty() ? "its CUDAExtension" : p.knobs.cuda_evidence,
        install));
}

// Why a torch extension's build compiles no CUDA code though the plan has targets ("" when it does):
// no CUDA code kiln sees (a CppExtension-only project), or a CPU-only torch with the project's CUDA
// code behind a switch or a GPU probe that stays off (rusty1s/pytorch_cluster 3d1d9e3 with Debian's
// torch 1.13: FORCE_CUDA left at its default). A CUDAExtension under no switch is tried, and fails
// (note_cpu_only_torch), so its targets stand.
std::string no_cuda_reason(const Plan& p, const std::optional<std::string>& cpu_torch) {
  if (p.kind != read::ProjectKind::extension || !p.cuda()) return {};
  if (p.knobs.cuda_evidence.empty())
    return "kiln sees no CUDA code in the project: no CUDAExtension, .cu source or nvcc flags in its build files";
  if (!cpu_torch) return {};
  std::vector<std::string> gates;
  for (const auto& k : p.knobs.knobs) {
    if (k.role != read::knob_roles::kCudaEnable && k.effect != "cuda" && k.effect != "select") continue;
    // A switch the user turned on builds the CUDA code (and fails on this torch): not "none".
    if (k.origin != read::KnobOrigin::none && !k.on_value.empty() &&
        core::to_lower(k.value) == core::to_lower(k.on_value))
      return {};
    gates.push_back(k.name + (k.where.empty() ? "" : " (" + k.where + ")"));
  }
  for (const auto& probe : p.knobs.probes) gates.push_back("the GPU probe at " + probe.substr(0, probe.find(' ')));
  if (gates.empty()) return {};
  return fmt::format(
      "torch {} is a CPU-only build, and the project compiles its CUDA code only through {}, which "
      "stay{} off against it",
      *cpu_torch, core::join(gates, ", "), gates.size() == 1 ? "s" : "");
}

// The project's own switches (data/project_knobs.toml): read from its build files, decided from the
// plan, then handed to the build as environment variables or -D entries. --set and -D win.
tl::expected<void, PlanError> plan_knobs(Plan& p, const BuildRequest& req, const io::Seams& s, const Sets& sets,
                                         const SetupRead& setup) {
  read::KnobContext kc;
  kc.cuda = p.cuda();
  kc.no_knobs = req.no_knobs;
  kc.jobs = p.jobs.jobs;
  kc.targets = static_cast<int>(p.targets.size());
  for (const auto& t : p.targets)
    if (t.kind == core::CodeKind::sass) {
      kc.sass.push_back(t.arch.number);
      kc.sass_suffix.push_back(t.arch.suffix());
    }
  auto overrides = parse_assignments(req.knobs, "--knob", "NAME");
  if (!overrides) return tl::unexpected(overrides.error());
  kc.overrides = *overrides;
  kc.env = &s.env;
  kc.has_library = [&s](const std::string& name) { return linker_finds(s.fs, name); };
  // What the ops' checks import (triton), looked up once in the build's interpreter.
  std::vector<std::string> modules;
  if (setup)
    for (const auto& op : setup->ops)
      for (const auto& u : op.open)
        if (!u.module.empty()) modules.push_back(u.module);
  const auto found = modules.empty() ? std::map<std::string, bool>() : probe::find_python_modules(s, p.python, modules);
  kc.has_module = [&found](const std::string& m) -> std::optional<bool> {
    auto it = found.find(m);
    return it == found.end() ? std::nullopt : std::optional<bool>(it->second);
  };
  kc.folder_exists = [&s, &sets](const std::string& var) -> std::optional<bool> {
    auto set = sets.find(var);
    auto value = set != sets.end() ? std::optional<std::string>(set->second) : s.env.get(var);
    if (!value || value->empty()) return std::nullopt;
    return s.fs.is_directory(*value);
  };
  kc.torch_version = p.torch_version;
  std::optional<std::string> cpu_torch;  // the CPU-only torch's version
  if (!p.torch_package.empty())
    if (auto text = s.fs.read(p.torch_package + "/version.py")) {
      probe::TorchInfo t;
      if (probe::parse_torch_version_py(*text, t)) {
        kc.torch_cuda = t.cuda;
        kc.torch_cpu_only = t.cuda.empty() && p.kind == read::ProjectKind::extension;
        if (kc.torch_cpu_only) cpu_torch = t.version;
      }
    }
  if (setup)
    for (const auto& o : setup->build_options)
      p.notes.push_back(fmt::format("{} {}: {}; kiln leaves setup.cfg as it is", o.where, o.text, o.why));
  // A PyTorch checkout's switches are its build options (pytorch_options.toml), planned above.
  if (p.kind == read::ProjectKind::pytorch) return {};
  p.knobs = read::decide_knobs(read::read_project(s.fs, p.project_dir, p.kind == read::ProjectKind::cmake, &setup), kc);
  // A project with no CUDA code (a CppExtension) builds its C++ against any torch: no note.
  if (cpu_torch && p.cuda() && !p.knobs.cuda_evidence.empty()) note_cpu_only_torch(p, *cpu_torch);
  if (auto why = no_cuda_reason(p, cpu_torch); !why.empty()) p.no_cuda = why;  // CUDA off was said before
  note_unread_knobs(p, *overrides, s.fs);
  route_suffixed_targets_of_project_lists(p, setup ? setup->arch_parsers : std::vector<read::ArchParser>{},
                                          setup ? setup->calls_cmake : std::string());
  // Not said where the list it sets from is a variable kiln sets to the plan's targets.
  const bool kiln_sets_it = std::any_of(p.knobs.knobs.begin(), p.knobs.knobs.end(), [&](const read::Knob& k) {
    return k.role == read::knob_roles::kArchList && k.origin == read::KnobOrigin::kiln &&
           (p.knobs.cmake_archs.find("{" + k.name + "}") != std::string::npos);
  });
  if (p.cuda() && !p.knobs.cmake_archs.empty() && !kiln_sets_it)
    p.notes.push_back("the project sets its own architectures (" + p.knobs.cmake_archs +
                      "), which beat the planned CMAKE_CUDA_ARCHITECTURES for what it covers");
  if (p.cuda() && !p.knobs.hardcoded_archs.empty())
    p.notes.push_back(
        "setup.py hard-codes nvcc architectures (" + p.knobs.hardcoded_archs +
        (p.prune_archs ? "); kiln's launcher replaces them with the planned targets (" + core::format_cmake(p.targets) +
                             ") in each compile; --keep-project-archs compiles the project's list instead"
         : req.governor
             ? "); with --keep-project-archs nvcc compiles those as well as the planned targets"
             : "); without kiln's launcher (--no-governor) nvcc compiles those as well as the planned targets"));
  auto defined = [&](const std::string& name) {
    for (const auto& d : p.cmake_defines)
      if (d.rfind(name + "=", 0) == 0 || d.rfind(name + ":", 0) == 0) return true;
    return false;
  };
  // A pip build that runs CMake (scikit-build-core, a setup.py calling cmake) takes CMake's entries
  // through CMAKE_ARGS, which both read; what the environment already has there comes first.
  std::string cmake_args;
  for (const auto& k : p.knobs.knobs) {
    if (!k.sets()) continue;
    if (k.cmake && p.kind == read::ProjectKind::cmake) {
      if (!defined(k.name)) p.cmake_defines.push_back(k.name + "=" + k.value);
    } else if (k.cmake) {
      cmake_args += (cmake_args.empty() ? "" : " ") + ("-D" + k.name + "=" + k.value);
    } else if (!sets.count(k.name)) {
      p.env[k.name] = k.value;
    }
  }
  if (!cmake_args.empty() && !sets.count("CMAKE_ARGS")) {
    const std::string had = s.env.get("CMAKE_ARGS").value_or("");
    p.env["CMAKE_ARGS"] = had.empty() ? cmake_args : had + " " + cmake_args;
  }
  return {};
}

// ccache's base_dir rewrites absolute paths under it relative to the compile's folder, the build
// folder (ccache's manual, "Compiling in different directories"), and no base_dir makes
// ../../a/proj/x.cu of one checkout and ../../../b/c/proj/x.cu of another agree: 27 of 27 misses
// for examples/minitorch. So a build folder outside the project configures through a link inside
// it, BUILD/.s -> DIR, and every path is .s/x.cu in any checkout (e2e cache_outside_checkout). The
// name is two characters because ccache spells a path the shortest way among it and its real path,
// and "../" and a folder name is always longer. A build folder CMake already configured from DIR
// itself keeps that (CMake refuses a second source folder), with a note.
void plan_source_link(Plan& p, const io::Filesystem& fs) {
  if (p.kind != read::ProjectKind::cmake || p.ccache.empty() || p.build_dir == p.project_dir ||
      p.build_dir.rfind(p.project_dir + "/", 0) == 0)
    return;
  const std::string link = p.build_dir + "/.s";
  std::string home;
  if (auto cache = fs.read(p.build_dir + "/CMakeCache.txt"))
    for (const auto& e : probe::parse_cmake_cache(*cache))
      if (e.name == "CMAKE_HOME_DIRECTORY") home = e.value;
  if (!home.empty() && home != link) {
    p.notes.push_back("the build folder is outside the project and was configured from " + home +
                      " itself: another checkout gets ccache hits only in a new build folder, which kiln "
                      "configures through a link (BUILD/.s) so that every path is the same in any checkout");
    return;
  }
  p.source_link = link;
  p.notes.push_back("the build folder is outside the project: CMake configures " + link + ", a link to " +
                    p.project_dir + ", so that another checkout built elsewhere shares ccache's hits");
}

// A clone without --recursive: its submodules' folders are empty and the build would fail minutes
// in, on a header "no package provides".
void note_empty_submodules(Plan& p, const io::Filesystem& fs) {
  p.empty_submodules = read::empty_submodules(fs, p.project_dir);
  if (p.empty_submodules.empty()) return;
  std::string paths;
  for (const auto& m : p.empty_submodules) paths += (paths.empty() ? "" : ", ") + m;
  p.notes.push_back(fmt::format(
      "empty git submodule{} {} (listed in .gitmodules, nothing on disk): the build will miss {} files; run git "
      "submodule update --init --recursive in {}",
      p.empty_submodules.size() == 1 ? "" : "s", paths, p.empty_submodules.size() == 1 ? "its" : "their",
      p.project_dir));
}

}  // namespace

const std::vector<std::string>& build_types() {
  static const std::vector<std::string> types{"Release", "RelWithDebInfo", "Debug", "MinSizeRel"};
  return types;
}

std::vector<std::string> profile_names() {
  std::vector<std::string> names;
  for (const auto& [k, v] : profiles_table()) names.emplace_back(k.str());
  return names;
}

tl::expected<Plan, PlanError> make_plan(const BuildRequest& req, const io::Seams& s, probe::GpuQuery& gpu_query,
                                        const probe::MachineInfo& machine) {
  SetupRead setup = tl::unexpected(std::string());
  auto started = start_plan(req, s, setup);
  if (!started) return started;
  Plan p = std::move(*started);
  p.kiln_args = request_args(req);
  Profile profile;
  if (!req.profile.empty()) {
    auto pr = load_profile(req.profile);
    if (!pr) return tl::unexpected(pr.error());
    profile = *pr;
    p.profile = req.profile;
  }
  p.build_type = !req.build_type.empty()       ? req.build_type
                 : !profile.build_type.empty() ? profile.build_type
                                               : "Release";
  // CMake takes any word and builds it without optimisation flags: a typo would cost the whole speed.
  // CMake's own names are matched whatever the case (`release`), and passed in CMake's spelling:
  // its per-type flags (CMAKE_CXX_FLAGS_RELEASE) are looked up by the upper-cased name, but
  // generator expressions and presets compare the spelling.
  const auto& types = build_types();
  auto same_word = [](const std::string& a, const std::string& b) {
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
             return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
           });
  };
  for (const auto& t : types)
    if (same_word(t, p.build_type)) p.build_type = t;
  if (std::find(types.begin(), types.end(), p.build_type) == types.end())
    return usage(fmt::format("--build-type '{}': expected Release, RelWithDebInfo, Debug or MinSizeRel", p.build_type));
  auto sets = parse_assignments(req.sets, "--set", "KEY");
  if (!sets) return tl::unexpected(sets.error());
  if (auto ok = find_build_tools(p, req, s, *sets); !ok) return tl::unexpected(ok.error());
  auto want_cuda = plan_options(p, req, s, profile, *sets);
  if (!want_cuda) return tl::unexpected(want_cuda.error());
  auto nvcc = find_compilers(p, req, s, *want_cuda);
  if (!nvcc) return tl::unexpected(nvcc.error());
  if (*want_cuda) {
    if (auto ok = plan_targets(p, req, s, profile, **nvcc, gpu_query); !ok) return tl::unexpected(ok.error());
  } else {
    p.arch_source = "none";
    p.arch_reason = "CUDA is off";
    p.no_cuda = p.profile.empty() ? "CUDA is off (USE_CUDA=0)" : "CUDA is off (profile " + p.profile + ")";
  }
  if (auto ok = plan_jobs_and_launcher(p, req, s, machine, *nvcc); !ok) return tl::unexpected(ok.error());
  plan_source_link(p, s.fs);
  note_empty_submodules(p, s.fs);
  if (p.kind != read::ProjectKind::cmake) {
    p.wheel_cache = req.wheel_cache && p.kind == read::ProjectKind::extension;
    p.torch_package = torch_package_dir(p, s);
    // cpp_extension builds against the torch of the interpreter that runs it, without isolation:
    // without one the backend would compile nothing and fail at its first import (the libtorch path
    // refuses up front the same way: read/torch_package).
    if (p.kind == read::ProjectKind::extension && p.torch_package.empty() &&
        read::builds_with_setuptools(s.fs, p.project_dir))
      return env_error(fmt::format(
          "{}: a torch extension, and {} finds no torch package; install torch into it ({} -m pip install torch) "
          "or pass --python with an interpreter that has it",
          p.project_dir, p.python, p.python));
    // pip installs the wheel at the end: an interpreter pip refuses to install into fails there,
    // after every compile (PEP 668).
    if (p.kind == read::ProjectKind::extension || p.pip)
      if (auto marker = probe::externally_managed(s, p.python))
        return env_error(fmt::format("{} is externally managed ({}, PEP 668): pip will refuse to install the build; {}",
                                     p.python, *marker, probe::externally_managed_fix(p.python)));
    p.torch_version = torch_version_for(p, s);
    if (p.kind == read::ProjectKind::extension) check_torch_requirements(p, s, setup);
    // The project's own parser of the architecture list (data/read_setup.py), if it has one.
    const read::ArchParser* parser = nullptr;
    if (setup)
      for (const auto& a : setup->arch_parsers)
        if (a.var == "TORCH_CUDA_ARCH_LIST" && !a.suffix_ok) parser = &a;
    auto env = python_build_env(p, *sets, parser, &p.notes);
    if (!env) return usage(env.error());
    p.env = *env;
  }
  if (auto ok = plan_knobs(p, req, s, *sets, setup); !ok) return tl::unexpected(ok.error());
  if (p.kind == read::ProjectKind::cmake || p.kind == read::ProjectKind::pytorch) {
    p.config = check_configuration(s.fs, p, s.fs.read(p.project_dir + "/setup.py").value_or(""));
    if (!p.config.made_for.empty())
      return usage(
          fmt::format("{} was configured from the source {}, not {}: that is another project's build "
                      "folder; give kiln another --build-dir, or remove {} if that build is no longer "
                      "wanted",
                      p.config.cache_path(), p.config.made_for, p.project_dir, p.config.cmake_dir));
    if (p.config.reconfigure && p.config.fresh == FreshConfigure::cmake_fresh) p.env["CMAKE_FRESH"] = "1";
  }
  return p;
}

}  // namespace kiln::plan
