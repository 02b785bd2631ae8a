#include "cli/plan_options.hpp"

#include <climits>

#include <charconv>
#include <filesystem>
#include <memory>

#include "core/size_text.hpp"
#include "core/text.hpp"
#include "cli/command.hpp"
#include "cli/json_out.hpp"
#include "cli/project_dir.hpp"
#include "probe/cuda_toolkit.hpp"
#include "probe/libraries.hpp"
#include "probe/local_gpus.hpp"
#include "probe/machine.hpp"

namespace kiln::cli {

std::optional<std::uint64_t> parse_size_kib(const std::string& text) {
  // Memory counts in 1024s, as the kernel and Slurm count it; a bare number is bytes.
  const auto bytes = core::parse_size_bytes(text, core::SizeBase::binary, 1);
  if (!bytes || *bytes < 1024) return std::nullopt;
  return *bytes / 1024;
}

void add_plan_options(CLI::App& app, PlanOptions& o) {
  app.add_option("--gpu", o.gpus, "Build for this GPU (name or compute capability); repeatable, or a comma list")
      ->envname("KILN_GPUS")
      ->delimiter(',');
  app.add_option("--archs", o.archs, "Architecture list in any spelling (see kiln archs)");
  app.add_option("--from", o.archs_from, "Spelling of --archs: torch, cmake, nvcc or auto");
  app.add_option("--profile", o.profile, "production, distribution, dev or cpu (data/profiles.toml)")
      ->envname("KILN_PROFILE");
  app.add_option("--set", o.sets,
                 "KEY=VALUE: a PyTorch option (USE_NCCL=0), an environment variable for Python "
                 "builds, a -D cache entry for CMake projects; repeatable");
  // 0 is refused rather than read as "auto": leaving the option out is how to ask for the default.
  app.add_option("-j,--jobs", o.jobs_flag, "Parallel compile jobs, 1 or more (default: from cores and memory)")
      ->envname("KILN_JOBS")
      ->check(CLI::Validator(
          [](std::string& v) {
            const auto n = core::parse_int(v);
            if (!n || *n < 1 || *n > INT_MAX)
              return "'" + v + "' is not a job count: give 1 or more, or leave --jobs out for kiln's choice";
            return std::string();
          },
          "N>=1"));
  app.add_option("--build-dir", o.build_dir, "Build folder (default: DIR/build-kiln)")->envname("KILN_BUILD_DIR");
  app.add_option("--build-type", o.build_type, "Release, RelWithDebInfo, Debug (default: the profile's, else Release)")
      ->envname("KILN_BUILD_TYPE");
  app.add_option("--cache-dir", o.cache_dir, "ccache directory for this build (default: ccache's own)")
      ->envname("KILN_CACHE_DIR");
  app.add_flag("--no-ccache", o.no_ccache, "Build without ccache");
  app.add_option("-D,--define", o.cmake_defines, "Extra CMake cache entry KEY=VALUE; repeatable")
      ->check(CLI::Validator(
          [](std::string& v) {
            const auto eq = v.find('=');
            if (eq == std::string::npos || eq == 0)
              return "'" + v + "' is not KEY=VALUE (KEY:TYPE=VALUE also works), e.g. -D CMAKE_CXX_STANDARD=17";
            return std::string();
          },
          "KEY=VALUE"));
  app.add_option("--python", o.python,
                 "Python interpreter for PyTorch and extension builds (default: $PYTHON, python3)");
  app.add_flag("--no-governor", o.no_governor,
               "Run compiles without kiln's memory governor (Ninja -j from memory instead)");
  app.add_option("--mem-budget", o.mem_budget,
                 "Memory the governor lets compiles reserve, e.g. 12G or 900M (powers of 1024) "
                 "(default: available memory, cgroup-aware, less a margin)")
      ->envname("KILN_MEM_BUDGET");
  app.add_flag("--no-split", o.no_split,
               "Never give long nvcc compiles extra threads (--split-compile/--threads) "
               "from idle cores")
      ->envname("KILN_NO_SPLIT");
  app.add_flag("--cpu-share", o.cpu_share,
               "Give each compile one CPU weight, shared by the threads it runs at each moment, "
               "instead of weighing each thread by the compile's priority (root only; off by "
               "default until it is shown to help, docs/cli/build.md)")
      ->envname("KILN_CPU_SHARE");
  app.add_flag("--no-wheel-cache", o.no_wheel_cache,
               "Always run a torch extension's build backend, even when a wheel "
               "built from the same inputs is in kiln's wheel cache")
      ->envname("KILN_NO_WHEEL_CACHE");
  // Pruning is the default (issue 35: flash-attention's own list compiled sm_90 and compute_90 beside
  // the planned sm_90a); --prune-archs stays accepted for the scripts that named it.
  app.add_flag("--prune-archs", o.prune_archs,
               "Each nvcc compile builds exactly the planned targets, the project's own -gencode/-arch flags "
               "replaced (the default)");
  app.add_flag("--keep-project-archs", o.keep_project_archs,
               "Let nvcc compile the architectures the project's own flags name (hard-coded -gencode lists, "
               "its own architecture variable), with the planned targets they cannot spell added")
      ->excludes("--prune-archs");
  app.add_option("--knob", o.knobs,
                 "NAME=VALUE: set one of the project's own build switches (a setup.py environment "
                 "variable or CMake cache entry), overriding kiln's choice; repeatable");
  app.add_flag("--no-knobs", o.no_knobs, "Set none of the project's own switches (they are still listed in the plan)")
      ->envname("KILN_NO_KNOBS");
  app.add_flag("--example", o.example,
               "Build the bundled example (examples/minitorch) instead of DIR or the current folder");
  app.add_flag("--set-unknown", o.set_unknown,
               "Pass --set USE_*/BUILD_* names the PyTorch checkout does not declare "
               "(refused by default: setup.py forwards them and CMake ignores them)");
  app.add_flag("--pip", o.pip, "Build a PyTorch checkout with pip install -e . --no-build-isolation -v");
}

void add_build_options(CLI::App& app, PlanOptions& o) {
  app.add_flag("--slurm", o.slurm,
               "Run each compile as a job step of the Slurm allocation kiln runs in (salloc, sbatch); "
               "Ninja runs here with the allocation's CPUs as -j (docs/cli/build.md)")
      ->envname("KILN_SLURM");
}

plan::Plan plan_or_throw(const std::string& dir, PlanOptions& o, io::Seams& s, const SettingOrigins& origins) {
  auto where = resolve_project_dir(dir, s, o.example);
  o.project_dir = where.dir;
  o.project_reason = where.reason;
  if (!o.build_dir.empty()) o.build_dir = absolute_dir(o.build_dir);
  o.ccache = !o.no_ccache;
  o.governor = !o.no_governor;
  o.split_threads = !o.no_split;
  o.wheel_cache = !o.no_wheel_cache;
  if (o.keep_project_archs) o.prune_archs = false;
  std::error_code ec;
  auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec) o.kiln_exe = exe.string();
  if (!o.mem_budget.empty()) {
    auto kib = parse_size_kib(o.mem_budget);
    if (!kib) {
      const auto from = setting_source(origins, s.env, {"--mem-budget"}, "KILN_MEM_BUDGET");
      throw UsageError("--mem-budget '" + o.mem_budget + "'" +
                       (from.empty() || from == "--mem-budget" ? "" : " (from " + from + ")") +
                       ": expected a size such as 12G, 900M or 2048K (" + core::size_base_text(core::SizeBase::binary) +
                       ")");
    }
    o.mem_budget_kib = *kib;
  }
  if (o.jobs_flag) {
    o.jobs = o.jobs_flag;
    o.jobs_source = setting_source(origins, s.env, {"-j", "--jobs"}, "KILN_JOBS");
  }
  // Features whose runtime library is missing or does not load are turned off (the CUPTI lesson).
  // Asked lazily, once, and only by PyTorch plans: the check loads each library in a child.
  auto libraries = std::make_shared<std::optional<std::vector<probe::LibraryReport>>>();
  o.library_check = [&s, libraries, exe = o.kiln_exe](const std::string& key) -> std::optional<bool> {
    if (!*libraries) {
      probe::Findings ignored;
      probe::LibraryOptions lo;
      lo.self_exe = exe;
      *libraries = probe::detect_libraries(s, probe::detect_cuda_toolkit(s), lo, ignored);
    }
    for (const auto& l : **libraries)
      if (l.key == key) return l.usable();
    return std::nullopt;
  };
  probe::SystemGpuQuery gpus(s);
  const auto machine = probe::probe_machine(s.fs, probe::online_cpus());
  auto plan = plan::make_plan(o, s, gpus, machine);
  if (!plan) {
    if (plan.error().usage) throw UsageError(plan.error().message);
    throw Failure(plan.error().message);
  }
  return *plan;
}

std::optional<plan::Plan> plan_unless_stopped(const std::string& dir, PlanOptions& o, io::Seams& s,
                                              const SettingOrigins& origins, io::BuildInterrupts& interrupts) {
  interrupts.planning(true);
  try {
    auto plan = plan_or_throw(dir, o, s, origins);
    interrupts.planning(false);
    if (io::BuildInterrupts::received()) return std::nullopt;
    return plan;
  } catch (...) {
    // A probe ended by the stop reads as a missing tool: the stop is the cause, not the error.
    interrupts.planning(false);
    if (io::BuildInterrupts::received()) return std::nullopt;
    throw;
  }
}

int stopped_while_planning(io::Seams& s, const io::BuildInterrupts& interrupts, const std::string& command, bool json) {
  const auto settled = interrupts.settle(std::chrono::seconds(5));
  const int sig = io::BuildInterrupts::received();
  std::string message = "stopped by " + io::signal_name(sig) + " while planning; nothing was built";
  if (!settled.clean) message += "; " + std::to_string(settled.left) + " process(es) it started still run";
  const int code = settled.clean ? 128 + sig : kFindings;
  s.err << "kiln " << command << ": " << message << "\n";
  if (json) print_json(s.out, "error", error_json(command, code, message));
  return code;
}

}  // namespace kiln::cli
