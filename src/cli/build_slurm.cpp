#include "cli/build_slurm.hpp"

#include <unistd.h>

#include <algorithm>
#include <map>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "cli/command.hpp"
#include "core/launcher_env.hpp"
#include "launch/ccache_admin.hpp"
#include "launch/exec_record.hpp"

namespace kiln::cli {
namespace {

// The compile cache must be one for all nodes: remote storage, or a folder they all see.
void add_cache(const plan::Plan& plan, io::Seams& s, probe::NodeProbe& probe) {
  if (plan.ccache.empty()) return;
  auto cc = launch::Ccache::find(s, plan.cache_dir);
  if (!cc) return;
  auto st = cc->status();
  if (!st) return;
  const std::string remote = st->value("remote_storage");
  if (!remote.empty() && remote != "none") return;
  const std::string dir = plan.cache_dir.empty() ? st->value("cache_dir") : plan.cache_dir;
  if (!dir.empty()) probe.paths["ccache folder (or set ccache remote storage: kiln cache --remote)"] = dir;
}

}  // namespace

SlurmBuild prepare_slurm(plan::Plan& plan, io::Seams& s) {
  if (!plan.governed())
    throw UsageError("--slurm runs each compile through kiln's launcher: it cannot be combined with --no-governor");
  SlurmBuild b;
  auto alloc = probe::detect_allocation(s, b.tools);
  if (!alloc) throw Failure("--slurm: " + alloc.error());
  b.allocation = *alloc;
  if (!alloc->lost.empty())
    s.err << fmt::format(
        "kiln: warning: --slurm: node(s) {} of Slurm job {} failed and left the job (salloc --no-kill): building on "
        "{}\n",
        fmt::join(alloc->lost, ", "), alloc->job_id, fmt::join(alloc->nodes, ", "));
  s.fs.make_dirs(plan.build_dir);
  probe::NodeProbe probe;
  probe.paths["build folder"] = plan.build_dir;
  probe.exchange_dir = plan.build_dir + "/.kiln";
  probe.paths["source folder"] = plan.project_dir;
  probe.paths["kiln binary"] = plan.kiln_exe;
  add_cache(plan, s, probe);
  for (const auto& tool : {plan.nvcc, plan.ccache, plan.real_cxx})
    if (!tool.empty()) probe.tools.push_back(tool);
  // A torch build reads the interpreter and torch's headers on every node: the same Python, and a
  // torch whose version.py (its version, CUDA and git commit) is this machine's.
  if (plan.kind == read::ProjectKind::extension || plan.libtorch()) {
    if (!plan.python.empty()) {
      const auto py = io::which(s, plan.python).value_or(plan.python);
      probe.tools.push_back(py);
      probe.tool_kinds[py] = "Python interpreter";
    }
    if (!plan.torch_package.empty())
      probe.files[fmt::format("torch{} (its version.py)", plan.torch_version.empty() ? "" : " " + plan.torch_version)] =
          plan.torch_package + "/version.py";
    // And the headers its units include: Python.h (an extension's), torch's own (both kinds). A
    // node without them failed every unit placed there, blamed on the project.
    if (plan.kind == read::ProjectKind::extension)
      if (const auto inc = probe::python_headers_dir(s, plan.python); !inc.empty() && s.fs.exists(inc + "/Python.h"))
        probe.files["Python.h (the Python headers)"] = inc + "/Python.h";
    if (const auto h = plan.torch_package + "/include/torch/extension.h"; !plan.torch_package.empty() && s.fs.exists(h))
      probe.files["torch/extension.h (torch's C++ headers)"] = h;
  }
  if (auto cxx = s.env.get("CXX"); cxx && !cxx->empty())
    probe.tools.push_back(io::which(s, *cxx).value_or(*cxx));
  else if (auto found = io::which(s, "c++"))
    probe.tools.push_back(*found);
  if (auto ok = probe::check_nodes(b.allocation, probe, s, b.tools); !ok) throw Failure("--slurm: " + ok.error());

  const auto& a = b.allocation;
  b.tag = fmt::format("kiln-{}", ::getpid());
  b.exec_log = plan.exec_log_path();
  b.exec_log_offset = s.fs.size(b.exec_log).value_or(0);
  if (!plan.jobs_forced) {
    plan.jobs.jobs = a.total_cpus();
    plan.jobs.arithmetic = fmt::format(
        "Slurm job {}: {} node(s), {} CPUs in all (SLURM_JOB_CPUS_PER_NODE); each compile "
        "is a job step asking for its learned peak memory",
        a.job_id, a.nodes.size(), a.total_cpus());
  }
  plan.cores = a.total_cpus();
  if (a.node_mem_kib) plan.mem_budget_kib = a.node_mem_kib * a.nodes.size();
  core::LauncherEnv kiln;  // each unit a job step (launch/slurm_step)
  kiln.slurm_units = true;
  kiln.slurm_self = plan.kiln_exe;
  kiln.slurm_reports = plan.build_dir + "/.kiln/steps";
  kiln.slurm_tag = b.tag;
  kiln.slurm_node_cpus = *std::min_element(a.cpus.begin(), a.cpus.end());
  // Each node with its CPUs (the launchers stop offering a dead node's), and the lost nodes too:
  // the watchdog knows the job lost them, not only that the others live.
  for (size_t i = 0; i < a.nodes.size(); ++i)
    kiln.slurm_nodes += fmt::format("{}{}:{}", kiln.slurm_nodes.empty() ? "" : ",", a.nodes[i], a.cpus[i]);
  for (const auto& n : a.lost) kiln.slurm_nodes += (kiln.slurm_nodes.empty() ? "" : ",") + n;
  if (a.node_mem_kib) kiln.slurm_node_mem_kib = a.node_mem_kib;
  for (auto& [k, v] : kiln.to_env()) plan.env[k] = std::move(v);
  return b;
}

std::string finish_slurm(const SlurmBuild& b, io::Seams& s) {
  std::string lines;
  const auto text = s.fs.read(b.exec_log).value_or("");
  std::map<std::string, int> per_node;
  for (const auto& r : launch::parse_exec_log(text.substr(std::min<size_t>(b.exec_log_offset, text.size()))).records) {
    const std::string node = r.node.empty() ? "this machine" : r.node;
    lines += fmt::format("kiln: --slurm: {} {} {}{}\n", r.output,
                         r.exit ? fmt::format("failed (exit {}) on", r.exit) : "ran on", node,
                         r.attempts > 1 ? fmt::format(" ({} attempts)", r.attempts) : "");
    ++per_node[r.exit ? "failed" : node];
  }
  std::string counts;
  for (const auto& [node, n] : per_node) counts += fmt::format("{}{} {}", counts.empty() ? "" : ", ", node, n);
  lines += fmt::format("kiln: --slurm: units per node: {}\n", counts.empty() ? "none ran" : counts);
  auto r = probe::cancel_steps(b.allocation.job_id, b.tag, s, b.tools);
  if (!r)
    lines += "kiln: --slurm: " + r.error() + "\n";
  else if (*r > 0)
    lines +=
        fmt::format("kiln: --slurm: cancelled {} step(s) of this build still in Slurm (scancel); none is left\n", *r);
  return lines;
}

}  // namespace kiln::cli
