#pragma once
// A build plan: what kiln will build, for which targets, with how many jobs and which cache, and
// the reason for each choice. `kiln build` executes it; `kiln plan` prints it; plan/make_plan makes it.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/arch.hpp"
#include "core/gpu_table.hpp"
#include "io/seams.hpp"
#include "probe/local_gpus.hpp"
#include "probe/machine.hpp"
#include "plan/config_check.hpp"
#include "plan/jobs.hpp"
#include "read/checkout_options.hpp"
#include "read/options.hpp"
#include "read/project_kind.hpp"
#include "read/project_knobs.hpp"

namespace kiln::plan {

struct Plan {
  std::string project_dir, build_dir;
  std::string project_reason;
  read::ProjectKind kind = read::ProjectKind::cmake;
  std::string profile;
  std::vector<read::ResolvedOption> options;  // PyTorch checkouts only
  std::map<std::string, std::string> env;     // variables kiln sets for the build (Python builds)
  std::string python;
  std::string torch_package;  // the interpreter's torch package folder ("" none found)
  std::string torch_version;  // the torch that reads TORCH_CUDA_ARCH_LIST ("" unknown: the newest kiln knows)
  bool pip = false;
  core::TargetSet targets;
  std::string arch_source;  // "--archs", "--gpu", "TORCH_CUDA_ARCH_LIST", "local GPUs", "default"
  std::string arch_reason;
  std::vector<core::GpuModel> gpus;  // what verification checks against
  JobsDecision jobs;
  bool jobs_forced = false;
  std::string jobs_source;  // who forced them: "--jobs", "KILN_JOBS", "kiln.toml:3"
  std::string build_type;
  std::string cmake, ninja, nvcc, nvcc_version, ccache;
  std::string generator = "Ninja";  // CMake projects: Ninja, or "Unix Makefiles" (built with cmake --build)
  std::string cache_dir;
  std::string kiln_exe;   // this binary: the launcher and the compiler masquerade
  bool governor = false;  // compiles go through `kiln exec` under the memory governor
  std::uint64_t mem_budget_kib = 0;
  std::string ledger;  // the governor's ledger, shared by every build on the machine (ledger_place)
  bool prune_archs = false;
  bool split_threads = false;  // the launcher may grant nvcc --split-compile / --threads (nvcc 12.0+)
  bool wheel_cache = false;    // launch/wheel_cache: torch extensions only
  bool nvcc_time = false;      // the launcher records nvcc --time phases per unit (nvcc 12.0+)
  bool cpu_share = false;      // the launcher shares each compile's CPU weight among its running threads
  int cores = 1;               // the machine's usable cores when planned: recorded for kiln report
  std::vector<std::string> cmake_defines;
  std::vector<std::string> kiln_args;  // the options that shaped this plan, as arguments (request_args)
  read::KnobPlan knobs;                // the project's own switches and what kiln does with each (project_knobs.hpp)
  std::vector<std::string> notes;
  // The project's declared torch versions that the build's torch is outside of (read/torch_requirement),
  // in a note, and in the build log when a step fails.
  struct UnmetTorch {
    std::string where, specifier;  // "pyproject.toml:12", ">=2.0"
  };
  std::vector<UnmetTorch> torch_unmet;
  // Git submodules .gitmodules lists whose folder is empty or missing (read/gitmodules), relative
  // to the project: named in a note, and the diagnosis of a missing header looks there.
  std::vector<std::string> empty_submodules;
  // libtorch projects (CMake projects that find_package(Torch)): the package kiln points CMake at,
  // and the targets in the spelling Torch's CMake reads (TORCH_CUDA_ARCH_LIST).
  std::string torch_dir, torch_dir_how, torch_arch_list;
  bool libtorch() const { return !torch_dir.empty(); }
  // The existing CMake cache against this plan (plan/stale_config), and what kiln does about it.
  ConfigCheck config;

  bool governed() const { return governor && !kiln_exe.empty(); }
  // A torch project's extensions build side by side, each Ninja at -j jobs: kiln exec keeps all
  // their compiles to one pool of the plan's jobs (launch/compile_pool).
  bool pooled() const { return governed() && kind == read::ProjectKind::extension; }
  // cpp_extension takes CXX and PYTORCH_NVCC for compilers and checks their versions, so a launcher
  // prefix ("ccache c++") reads as compiler "ccache", version 0.0.0. Instead CXX and PYTORCH_NVCC
  // name links to kiln in this folder, which run the launchers and then the real compiler.
  // distutils splits CXX on blanks: a build folder with one in its path gets its links elsewhere
  // (links_dir, in kiln's user cache; make_plan).
  std::string links_dir;
  std::string wrapper_dir() const { return links_dir.empty() ? build_dir + "/.kiln/bin" : links_dir; }
  bool wraps_compilers() const {
    return kind == read::ProjectKind::extension && !kiln_exe.empty() && !launcher().empty();
  }
  std::string real_cxx;  // the compiler behind the c++ wrapper
  // A CMake project built outside its folder is configured through this link to it, BUILD/.s, so
  // that every source path ccache sees is the same in any checkout (make_plan); "" configures DIR.
  std::string source_link;
  std::string configure_source() const { return source_link.empty() ? project_dir : source_link; }
  // ccache's base_dir: the build folder when configured through source_link, else the deepest
  // folder holding both project and build folder.
  std::string ccache_basedir() const;
  std::string exec_log_path() const { return build_dir + "/kiln-exec.jsonl"; }
  // One file per compile running now, written by the launcher (launch/running_units).
  std::string running_dir() const { return build_dir + "/.kiln/running"; }
  // The units the build is about to compile (launch/unit_plan; written by the CMake driver).
  std::string unit_plan_path() const { return build_dir + "/.kiln/units.plan"; }
  // The launcher chain for one compile, before the compiler: kiln exec --, then ccache.
  std::vector<std::string> launcher() const;

  std::string log_path() const { return build_dir + "/kiln-build.log"; }
  std::string ccache_log_path() const { return build_dir + "/kiln-ccache-stats.log"; }
  // What kiln report needs to know about the build machine and where kiln's records are
  // (kiln-build.json, written into the build folder and into each Ninja folder of the build).
  std::string build_record_json() const;
  bool cuda() const { return !targets.empty(); }
  // Why the build compiles no CUDA code for the targets ("" when it does): CUDA off, a torch extension
  // with no CUDA code kiln sees, or one whose CUDA code is gated off against a CPU-only torch. The
  // targets are still handed to the build (TORCH_CUDA_ARCH_LIST); the plan says none is compiled.
  std::string no_cuda;
  std::vector<std::string> configure_argv() const;  // CMake projects only
  std::vector<std::string> build_argv() const;      // ninja, or the Python build
  // A torch extension is built into a wheel by its own backend (drive/wheel_build), then pip installs it.
  std::string wheel_dir() const { return build_dir + "/wheel"; }
  std::string wheel_script_path() const { return build_dir + "/.kiln/wheel_build.py"; }
  // The child environment: kiln's own plus the cache settings and nvcc's folder on PATH.
  std::map<std::string, std::string> child_env(const io::Environment& env) const;
};

struct PlanError {
  std::string message;
  bool usage = false;  // bad input (exit 2) rather than an environment problem (exit 1)
};

}  // namespace kiln::plan
