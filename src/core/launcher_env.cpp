#include "core/launcher_env.hpp"

#include <algorithm>
#include <functional>

#include "core/text.hpp"

namespace kiln::core {
namespace {

using Get = std::function<std::string(std::string_view)>;  // "" when unset

// One list of (variable, field) for both directions, so writing and reading cannot drift apart.
template <typename Env, typename Visit>
void each(Env& e, Visit&& visit) {
  using namespace launcher_vars;
  visit(kWrapCxx, e.wrap_cxx);
  visit(kWrapNvcc, e.wrap_nvcc);
  visit(kExecLog, e.exec_log);
  visit(kExe, e.exe);
  visit(kRunning, e.running);
  visit(kLedger, e.ledger);
  visit(kMemBudgetKib, e.mem_budget_kib);
  visit(kMemHistory, e.mem_history);
  visit(kUnitHistory, e.unit_history);
  visit(kProjectDir, e.project_dir);
  visit(kCores, e.cores);
  visit(kSplit, e.split);
  visit(kUnitPlan, e.unit_plan);
  visit(kCpuShare, e.cpu_share);
  visit(kPoolJobs, e.pool_jobs);
  visit(kNvccTime, e.nvcc_time);
  visit(kPruneArchs, e.prune_archs);
  visit(kExtraArchs, e.extra_archs);
  visit(kSlurmUnits, e.slurm_units);
  visit(kSlurmSelf, e.slurm_self);
  visit(kSlurmReports, e.slurm_reports);
  visit(kSlurmTag, e.slurm_tag);
  visit(kSlurmNodeCpus, e.slurm_node_cpus);
  visit(kSlurmNodeMemKib, e.slurm_node_mem_kib);
  visit(kSlurmRetries, e.slurm_retries);
  visit(kSlurmStepWait, e.slurm_step_wait);
  visit(kSlurmSrun, e.slurm_srun);
  visit(kSlurmSqueue, e.slurm_squeue);
  visit(kSlurmSinfo, e.slurm_sinfo);
  visit(kSlurmNodes, e.slurm_nodes);
  visit(kStepReport, e.step_report);
  visit(kStepRunning, e.step_running);
}

struct Writer {
  std::map<std::string, std::string>& out;
  void operator()(std::string_view name, const std::string& v) const {
    if (!v.empty()) out[std::string(name)] = v;
  }
  void operator()(std::string_view name, bool v) const {
    if (v) out[std::string(name)] = "1";
  }
  void operator()(std::string_view name, const std::optional<bool>& v) const {
    if (v) out[std::string(name)] = *v ? "1" : "0";
  }
  template <typename N>
  void operator()(std::string_view name, const std::optional<N>& v) const {
    if (v) out[std::string(name)] = std::to_string(*v);
  }
};

struct Reader {
  const Get& get;
  void operator()(std::string_view name, std::string& v) const { v = get(name); }
  void operator()(std::string_view name, bool& v) const { v = get(name) == "1"; }
  void operator()(std::string_view name, std::optional<bool>& v) const {
    const auto s = get(name);
    if (!s.empty()) v = s == "1";
  }
  void operator()(std::string_view name, std::optional<std::uint64_t>& v) const { v = parse_uint(get(name)); }
  void operator()(std::string_view name, std::optional<long long>& v) const { v = parse_int(get(name)); }
};

LauncherEnv read(const Get& get) {
  LauncherEnv e;
  each(e, Reader{get});
  return e;
}

}  // namespace

std::map<std::string, std::string> LauncherEnv::to_env() const {
  std::map<std::string, std::string> out;
  each(*this, Writer{out});
  return out;
}

LauncherEnv LauncherEnv::from_env(const io::Environment& env) {
  return read([&env](std::string_view name) { return env.get(std::string(name)).value_or(""); });
}

LauncherEnv LauncherEnv::from_env(const std::map<std::string, std::string>& env) {
  return read([&env](std::string_view name) {
    auto it = env.find(std::string(name));
    return it == env.end() ? std::string() : it->second;
  });
}

bool is_launcher_variable(std::string_view name) {
  return std::find(std::begin(kLauncherVariables), std::end(kLauncherVariables), name) != std::end(kLauncherVariables);
}

}  // namespace kiln::core
