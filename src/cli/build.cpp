// kiln build: plan, run CMake + Ninja with the planned targets, jobs and cache, then summarise.
#include <fmt/format.h>
#include <signal.h>
#include <unistd.h>

#include <fstream>

#include "cli/build_progress.hpp"
#include "cli/build_render.hpp"
#include "cli/build_slurm.hpp"
#include "cli/command.hpp"
#include "cli/json_out.hpp"
#include "cli/plan_options.hpp"
#include "core/epoch_ms.hpp"
#include "drive/build.hpp"
#include "drive/build_lock.hpp"
#include "drive/build_verdict.hpp"
#include "drive/compile_span.hpp"
#include "drive/eta.hpp"
#include "io/interrupt.hpp"
#include "io/terminal.hpp"
#include "plan/plan.hpp"
#include "plan/plan_report.hpp"
#include "probe/disk.hpp"

namespace kiln::cli {
namespace {

// After a stop signal: how long the build tree has to stop by itself before it is SIGKILLed, and
// how long after that kiln waits before saying what is left.
constexpr std::chrono::seconds kStopGrace{5}, kAfterKill{5};

using core::epoch_ms;

// What the launcher says runs now (launch/running_units); nothing when no launcher runs.
RunningSource running_source(io::Seams& s, const plan::Plan& plan) {
  if (!plan.governed()) return {};
  return [&fs = s.fs, dir = plan.running_dir()] {
    return longest_running(launch::running_units(fs, dir, io::system_processes()), epoch_ms());
  };
}

class BuildCommand final : public Command {
public:
  const char* name() const override { return "build"; }
  const char* summary() const override {
    return "Plan, build and verify a CUDA project: CMake project, PyTorch checkout or torch extension";
  }
  void setup(CLI::App& app) override {
    app.add_option("dir", dir_,
                   "Project directory: CMake project, PyTorch checkout or torch extension (default: the current folder "
                   "when it is a project; the bundled example from the kiln repository or with --example)");
    add_plan_options(app, req_);
    add_build_options(app, req_);
    app.add_flag("--json", json_, "Print the plan and the outcome as JSON");
  }

  std::optional<ProjectArg> project_arg() const override { return ProjectArg{dir_, req_.example}; }
  int run(io::Seams& s) override {
    // SIGINT, SIGTERM and SIGHUP stop the whole build tree (Ninja and every compile under it),
    // not just kiln; kiln leaves only when none of it runs. Before the build, they end the plan's
    // probes (plan_unless_stopped).
    io::BuildInterrupts interrupts(kStopGrace);
    auto planned = plan_unless_stopped(dir_, req_, s, origins, interrupts);
    if (!planned) return stopped_while_planning(s, interrupts, name(), json_);
    plan::Plan plan = std::move(*planned);
    // One build per folder: a second run would overwrite the first one's files and log.
    auto lock = drive::BuildLock::acquire(plan.build_dir, drive::own_command_line());
    if (!lock) throw Failure(lock.error());
    if (req_.slurm) slurm_ = prepare_slurm(plan, s);
    if (!json_) s.err << plan::plan_to_text(plan) << "\n";

    // The ETA learns from the previous build in this folder: what each output took last time.
    auto learned = drive::learned_from_last_build(s.fs, plan);
    const long long started_ms = epoch_ms();
    std::optional<BuildProgress> progress;
    drive::ProgressSink sink;
    if (!json_) {
      drive::EtaModel eta(std::move(learned), plan.jobs.jobs, [&s, &plan, started_ms] {
        return drive::learned_from_unit_history(s.fs, plan, s.env, started_ms);
      });
      // Cold, the units left are scaled by kiln's weights of them once those explain the times.
      eta.weigh_late([&s, &plan] { return drive::unit_plan_weights(s.fs, plan, s.env); });
      progress.emplace(
          s, [&s] { return io::terminal_for(STDERR_FILENO, s.env); }, std::move(eta), running_source(s, plan));
      sink = progress->sink();
    }
    auto outcome = drive::run_build(plan, s, sink);
    // A torch extension's compiles against the whole step: what was the backend's and pip's.
    // Kept for `kiln report --simulate`: .ninja_log has neither that time nor setuptools' links.
    if (plan.kind == read::ProjectKind::extension && plan.governed() && !outcome.wheel_cache.hit)
      if (auto text = s.fs.read(plan.exec_log_path()))
        if ((span_ = drive::compile_span(*text, started_ms, epoch_ms())))
          s.fs.write(drive::compile_span_path(plan.build_dir), drive::compile_span_json(*span_));
    if (progress) progress->finish();
    // Nothing of this build may stay in Slurm, however it ended. On a stop, only once the tree has
    // settled: an srun whose kiln exec died first still creates or ends its step as an orphan.
    if (int sig = io::BuildInterrupts::received()) return stopped(s, plan, interrupts, sig, json_);
    finish_slurm_once(s, plan);

    const auto verdict = drive::finish_build(plan, outcome, span_ ? span_->units : -1, s, probe::StatvfsDiskQuery());
    // A stop during verification is honoured too (it exited 0 after SIGTERM), --json or not.
    if (outcome.ok)
      if (int sig = io::BuildInterrupts::received()) return stopped(s, plan, interrupts, sig, json_);
    if (json_) {
      print_json(s.out, "build", build_json(plan, outcome, verdict, span_));
      return verdict.ok ? kOk : kFindings;
    }
    return print_build_text(s, plan, outcome, verdict, span_);
  }

private:
  // --slurm: the per-node lines and the cancelling of this build's steps left in Slurm, once (a
  // stop during verification comes after the build's own call).
  void finish_slurm_once(io::Seams& s, const plan::Plan& plan) {
    if (!slurm_ || slurm_finished_) return;
    slurm_finished_ = true;
    std::ofstream(plan.log_path(), std::ios::app) << finish_slurm(*slurm_, s);
  }

  // Waits for the tree to stop, records it in the build log, and exits 128 + signal only when
  // nothing of the build still runs.
  int stopped(io::Seams& s, const plan::Plan& plan, const io::BuildInterrupts& interrupts, int sig, bool json) {
    const auto settled = interrupts.settle(kAfterKill);
    finish_slurm_once(s, plan);
    const std::string name = io::signal_name(sig);
    std::string line = fmt::format("kiln: build stopped by {} after it was forwarded to the build tree", name);
    if (settled.killed)
      line += fmt::format("; {} process(es) still ran {} s later and were killed", settled.killed, kStopGrace.count());
    line += settled.clean ? "; nothing of the build still runs"
                          : fmt::format("; {} process(es) of the build still run", settled.left);
    std::ofstream(plan.log_path(), std::ios::app) << line << "\n";
    // --json prints a result on every exit: here, the interruption.
    if (json)
      print_json(s.out, "build",
                 {{"plan", plan::plan_to_json(plan)},
                  {"outcome",
                   {{"ok", false},
                    {"failed_step", "interrupted"},
                    {"interrupted",
                     {{"signal", name}, {"clean", settled.clean}, {"left", settled.left}, {"killed", settled.killed}}},
                    {"exit_code", settled.clean ? 128 + sig : 1},
                    {"log", plan.log_path()}}}});
    if (!settled.clean) {
      s.err << "kiln build: " << name << ": " << settled.left
            << " process(es) of the build did not stop even after SIGKILL. Full log: " << plan.log_path() << "\n";
      return kFindings;
    }
    s.err << "kiln build: stopped by " << name << "; stopped the build. Full log: " << plan.log_path() << "\n";
    return 128 + sig;
  }

  std::string dir_;
  PlanOptions req_;
  std::optional<SlurmBuild> slurm_;
  bool slurm_finished_ = false;
  std::optional<drive::CompileSpan> span_;  // a torch extension's compiles within the build step
  bool json_ = false;
};

}  // namespace

std::unique_ptr<Command> make_build() { return std::make_unique<BuildCommand>(); }

}  // namespace kiln::cli
