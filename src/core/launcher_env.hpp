#pragma once
// The contract between `kiln build` and its launchers: `kiln exec` runs as a child of Ninja or pip
// (and with --slurm, as a job step on another node), so the plan reaches it through environment
// variables. Each one is named here and nowhere else: the plan (plan::Plan::child_env), the Slurm
// build (cli/build_slurm) and the step launcher write them with to_env(), the launchers, the compiler
// links and the ETA read them with from_env(). docs/architecture.md's table lists kNames (a unit
// test checks it). An empty string or an absent number is a variable that is not set.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "io/environment.hpp"

namespace kiln::core {

namespace launcher_vars {
inline constexpr std::string_view kWrapCxx = "KILN_WRAP_CXX", kWrapNvcc = "KILN_WRAP_NVCC", kExecLog = "KILN_EXEC_LOG",
                                  kExe = "KILN_EXE", kRunning = "KILN_RUNNING", kLedger = "KILN_LEDGER",
                                  kMemBudgetKib = "KILN_MEM_BUDGET_KIB", kMemHistory = "KILN_MEM_HISTORY",
                                  kUnitHistory = "KILN_UNIT_HISTORY", kProjectDir = "KILN_PROJECT_DIR",
                                  kCores = "KILN_CORES", kSplit = "KILN_SPLIT", kUnitPlan = "KILN_UNIT_PLAN",
                                  kCpuShare = "KILN_CPU_SHARE", kPoolJobs = "KILN_POOL_JOBS",
                                  kNvccTime = "KILN_NVCC_TIME", kPruneArchs = "KILN_PRUNE_ARCHS",
                                  kExtraArchs = "KILN_EXTRA_ARCHS", kSlurmUnits = "KILN_SLURM_UNITS",
                                  kSlurmSelf = "KILN_SLURM_SELF", kSlurmReports = "KILN_SLURM_REPORTS",
                                  kSlurmTag = "KILN_SLURM_TAG", kSlurmNodeCpus = "KILN_SLURM_NODE_CPUS",
                                  kSlurmNodeMemKib = "KILN_SLURM_NODE_MEM_KIB", kSlurmRetries = "KILN_SLURM_RETRIES",
                                  kSlurmStepWait = "KILN_SLURM_STEP_WAIT", kSlurmSrun = "KILN_SLURM_SRUN",
                                  kSlurmSqueue = "KILN_SLURM_SQUEUE", kSlurmSinfo = "KILN_SLURM_SINFO",
                                  kSlurmNodes = "KILN_SLURM_NODES", kStepReport = "KILN_STEP_REPORT",
                                  kStepRunning = "KILN_STEP_RUNNING";
}  // namespace launcher_vars

struct LauncherEnv {
  // The compiler links (BUILD/.kiln/bin/c++, nvcc): the launchers after `kiln exec --`, then the
  // compiler, joined by '\x1f'.
  std::string wrap_cxx, wrap_nvcc;
  std::string exec_log;  // kiln-exec.jsonl: one JSON line per compile
  std::string exe;       // the kiln binary, for data/parallel_extensions.py's `kiln exec --weigh`
  std::string running;   // a folder of one file per running compile, for the progress line
  // The memory governor: its shared ledger (absent: no governing) and budget.
  std::string ledger;
  std::optional<std::uint64_t> mem_budget_kib;
  // Learned peaks and durations: per output in this build folder, per unit across checkouts of
  // the project (keyed by the output's path inside it).
  std::string mem_history, unit_history, project_dir;
  std::optional<std::uint64_t> cores;  // the build's cores, for thread grants
  bool split = false;                  // long nvcc units get thread grants
  std::string unit_plan;               // the build's units to come, for the grants (launch/unit_plan)
  // Each compile's CPU weight shared among its running threads (launch/thread_share). A governed
  // plan always says it, so a user's KILN_CPU_SHARE=1 refused by the plan does not reach them.
  std::optional<bool> cpu_share;
  // At most this many compiles of the build run at once, whichever Ninja started them (a torch
  // project's extensions side by side, each Ninja at -j jobs): launch/compile_pool.
  std::optional<std::uint64_t> pool_jobs;
  std::string nvcc_time;                 // a folder for nvcc --time phase files
  std::string prune_archs, extra_archs;  // planned targets (--prune-archs), targets torch cannot spell
  // --slurm: each unit a job step, its report back in slurm_reports.
  bool slurm_units = false;
  std::string slurm_self, slurm_reports, slurm_tag;
  std::optional<long long> slurm_node_cpus, slurm_retries, slurm_step_wait;  // the last two: a user's settings
  std::optional<std::uint64_t> slurm_node_mem_kib;
  std::string slurm_srun, slurm_squeue, slurm_sinfo;  // the Slurm tools to use (tests point them at fakes)
  std::string slurm_nodes;   // the allocation's nodes, "n1:CPUS,n2:CPUS": the watchdog asks sinfo about them
  std::string step_report;   // on the node: where this step's report goes
  std::string step_running;  // on the node: the launcher's running file, told when the step starts

  // The variables that are set, by name.
  std::map<std::string, std::string> to_env() const;
  static LauncherEnv from_env(const io::Environment& env);
  static LauncherEnv from_env(const std::map<std::string, std::string>& env);
};

// Every variable of the contract, in the order of LauncherEnv's fields.
inline constexpr std::string_view kLauncherVariables[] = {
    launcher_vars::kWrapCxx,      launcher_vars::kWrapNvcc,      launcher_vars::kExecLog,
    launcher_vars::kExe,          launcher_vars::kRunning,       launcher_vars::kLedger,
    launcher_vars::kMemBudgetKib, launcher_vars::kMemHistory,    launcher_vars::kUnitHistory,
    launcher_vars::kProjectDir,   launcher_vars::kCores,         launcher_vars::kSplit,
    launcher_vars::kUnitPlan,     launcher_vars::kCpuShare,      launcher_vars::kPoolJobs,
    launcher_vars::kNvccTime,     launcher_vars::kPruneArchs,    launcher_vars::kExtraArchs,
    launcher_vars::kSlurmUnits,   launcher_vars::kSlurmSelf,     launcher_vars::kSlurmReports,
    launcher_vars::kSlurmTag,     launcher_vars::kSlurmNodeCpus, launcher_vars::kSlurmNodeMemKib,
    launcher_vars::kSlurmRetries, launcher_vars::kSlurmStepWait, launcher_vars::kSlurmSrun,
    launcher_vars::kSlurmSqueue,  launcher_vars::kSlurmSinfo,    launcher_vars::kSlurmNodes,
    launcher_vars::kStepReport,   launcher_vars::kStepRunning};

// Whether NAME is one of the contract's variables.
bool is_launcher_variable(std::string_view name);

}  // namespace kiln::core
