#include "drive/build_verdict.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>

#include "core/arch_spec.hpp"
#include "core/version.hpp"
#include "diagnose/diagnoser.hpp"
#include "drive/kill_evidence.hpp"
#include "drive/nothing_compiled.hpp"
#include "probe/local_gpus.hpp"
#include "read/project_headers.hpp"
#include "read/project_knobs.hpp"
#include "read/setup_py_source.hpp"

namespace kiln::drive {
namespace {

// A tool may fail on a full disk without saying so (CMake's own writes): the log gets a line the
// diagnosis reads (resources.no-space) when the build folder's file system is (nearly) full.
// (When the log itself could not be written, the same line is given beside the diagnosis.)
std::optional<std::string> full_disk(const plan::Plan& p, const probe::DiskQuery& disk) {
  const auto d = disk.space(p.build_dir);
  if (!d || d->free_bytes >= (1u << 20)) return std::nullopt;
  return fmt::format("kiln: disk full: {} has {} KiB free", p.build_dir, d->free_bytes / 1024);
}

diagnose::Diagnosis diagnose_log(const plan::Plan& p, const io::Filesystem& fs) {
  std::ifstream in(p.log_path(), std::ios::binary);
  diagnose::Options opts;
  opts.plan = plan_context(p);
  opts.plan->project_headers = read::project_headers(fs, p.project_dir);
  opts.plan->setup_py = read::setup_py_source(fs, p.project_dir);
  return diagnose::diagnose_stream(in, opts);
}

// What the built binaries really hold, and whether they run on the planned GPUs with every
// library they need resolvable: the same check as `kiln verify`.
binary::VerifyReport verify(io::Seams& s, const plan::Plan& p, const BuildOutcome& o) {
  std::vector<std::pair<std::string, core::GpuModel>> gpus;
  for (const auto& g : p.gpus) gpus.emplace_back(g.name, g);
  binary::VerifyOptions opt;
  // Modules in the build tree are imported after the plan's interpreter's torch, as kiln verify
  // --python checks them.
  if (p.kind != read::ProjectKind::cmake) opt.python = p.python;
  auto report = binary::verify_files(o.artifacts, gpus, opt, s);
  // The project's own CUDA_ARCHITECTURES beat the plan's list: that line is what to change.
  for (auto& pr : report.problems)
    if (pr.kind == binary::ProblemKind::no_kernel && !p.knobs.cmake_archs.empty())
      pr.fix = fmt::format(
          "the project sets its own architectures ({}), which override the planned {}: change them "
          "to {} or remove them",
          p.knobs.cmake_archs, core::format_cmake(p.targets), core::format_cmake(p.targets));
  // A project may build no CUDA code at all (a C++ library, the cpu profile): not a failure of
  // the build, so it is said as a note in the summary instead.
  std::erase_if(report.problems, [](const binary::Problem& pr) { return pr.kind == binary::ProblemKind::no_cuda; });
  return report;
}

// A project with CUDA code whose build compiled none, though the plan has targets: the build
// did not do what was asked (a switch off, a skip switch on, a GPU probe), so it fails, naming
// the gate and the variable that turns it on.
std::optional<std::string> no_cuda_failure(io::Seams& s, const plan::Plan& p, const binary::VerifyReport& v) {
  if (!p.cuda() || !v.files.empty() || p.knobs.cuda_evidence.empty()) return std::nullopt;
  // What the machine has, so that the reason never blames a GPU probe where the driver lists a GPU.
  read::BuildMachine machine;
  machine.nvcc_version = p.nvcc_version;
  if (const auto local = probe::SystemGpuQuery(s).query(); !local.source.empty()) {
    machine.gpu_seen = !local.gpus.empty();
    if (!local.gpus.empty()) machine.gpu_name = local.gpus.front().name;
  }
  std::string gate = read::cuda_gate_reason(p.knobs, s.env, machine);
  return fmt::format("{} has CUDA code ({}) but the build compiled none for {}: {}", p.project_dir,
                     p.knobs.cuda_evidence, core::format_cmake(p.targets),
                     gate.empty()
                         ? "kiln found no switch in setup.py or CMakeLists.txt that gates it; read the log for "
                           "what the build skipped"
                         : gate);
}

}  // namespace

diagnose::PlanContext plan_context(const plan::Plan& p) {
  diagnose::PlanContext c;
  c.jobs = p.jobs.jobs;
  c.memory_gib = p.governed() ? p.mem_budget_kib / 1048576.0 : p.jobs.budget_gib;
  // Next time: what memory allows without the governor, at most half of what was used.
  c.next_jobs = std::max(1, std::min(p.jobs.by_memory, p.jobs.jobs / 2));
  c.arch_list = core::format_torch(p.targets).value_or(core::format_cmake(p.targets));
  c.cuda_version = core::major_minor(p.nvcc_version);
  c.empty_submodules = p.empty_submodules;
  for (const auto& k : p.knobs.knobs)
    if (k.role == read::knob_roles::kForceBuild && !k.on_value.empty() && c.force_build.empty())
      c.force_build = k.name + "=" + k.on_value;
  return c;
}

BuildVerdict finish_build(const plan::Plan& plan, const BuildOutcome& outcome, int exec_units, io::Seams& s,
                          const probe::DiskQuery& disk) {
  BuildVerdict v;
  v.exit_code = outcome.exit_code;
  if (!outcome.ok) {
    v.failed_step = outcome.failed_step;
    v.full_disk = full_disk(plan, disk);
    if (v.full_disk) std::ofstream(plan.log_path(), std::ios::app) << *v.full_disk << "\n";
    // A torch outside the project's declared range is the likelier cause of an error in its headers.
    for (const auto& unmet : plan.torch_unmet)
      std::ofstream(plan.log_path(), std::ios::app)
          << fmt::format("kiln: torch requirement not met: {} declares torch{}, and the build's torch is {}\n",
                         unmet.where, unmet.specifier, plan.torch_version);
    v.diagnosis = diagnose_log(plan, s.fs);
    // "Killed" reads as memory; kiln's own counts can say it was not.
    if (auto line = killed_not_oom_line(plan, outcome, v.diagnosis, s)) {
      std::ofstream(plan.log_path(), std::ios::app) << *line << "\n";
      v.diagnosis = diagnose_log(plan, s.fs);
    }
    return v;
  }
  v.verified = verify(s, plan, outcome);
  v.no_cuda = no_cuda_failure(s, plan, v.verified);
  // Built but not runnable where planned is a failed build; a build that compiled none of the
  // project's CUDA code says that first.
  if (!v.verified.ok()) v.failed_step = "verify", v.exit_code = 1;
  if (v.no_cuda) v.failed_step = "no-cuda";
  // Nothing compiled at all comes first: it is why no CUDA was compiled either.
  v.nothing_compiled = nothing_compiled_failure(plan, outcome, exec_units, s);
  if (v.nothing_compiled) v.failed_step = "nothing-compiled", v.exit_code = 1;
  v.ok = v.failed_step.empty();
  return v;
}

}  // namespace kiln::drive
