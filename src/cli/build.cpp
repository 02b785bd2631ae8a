// kiln build: plan, run CMake + Ninja with the planned targets, jobs and cache, then summarise.
#include <fmt/format.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <nlohmann/json.hpp>

#include "cli/command.hpp"
#include "cli/json_out.hpp"
#include <fstream>

#include "binary/verify.hpp"
#include "cli/build_progress.hpp"
#include "cli/build_slurm.hpp"
#include "cli/plan_options.hpp"
#include "io/terminal.hpp"
#include "report/ninja_log.hpp"
#include "diagnose/diagnoser.hpp"
#include "io/interrupt.hpp"
#include "diagnose/render.hpp"
#include "core/arch_spec.hpp"
#include "core/compat.hpp"
#include "probe/disk.hpp"
#include "probe/local_gpus.hpp"
#include "probe/machine.hpp"
#include "drive/build_lock.hpp"
#include "drive/build.hpp"
#include "drive/compile_span.hpp"
#include "drive/eta.hpp"
#include "drive/nothing_compiled.hpp"
#include "plan/plan.hpp"
#include "plan/plan_report.hpp"

namespace kiln::cli {
namespace {

using json = nlohmann::ordered_json;

// After a stop signal: how long the build tree has to stop by itself before it is SIGKILLed, and
// how long after that kiln waits before saying what is left.
constexpr std::chrono::seconds kStopGrace{5}, kAfterKill{5};

std::string seconds(std::chrono::milliseconds ms) { return fmt::format("{:.1f}s", ms.count() / 1000.0); }

long long epoch_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

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

    // The ETA learns from the previous build in this folder: what each output took last time, over
    // the whole build (every extension of a torch extension project).
    std::map<std::string, long> learned;
    if (auto text = s.fs.read(plan.build_dir + "/.ninja_log")) learned = report::last_durations(*text);
    // A torch extension's compiles (every extension's Ninja): from kiln exec's records of them.
    if (learned.empty())
      if (auto text = s.fs.read(plan.exec_log_path())) learned = drive::learned_from_exec_log(*text);
    std::optional<BuildProgress> progress;
    drive::ProgressSink sink;
    if (!json_) {
      progress.emplace(
          s, [&s] { return io::terminal_for(STDERR_FILENO, s.env); },
          drive::EtaModel(std::move(learned), plan.jobs.jobs,
                          [&s, &plan] { return drive::learned_from_unit_history(s.fs, plan, s.env); }),
          running_source(s, plan));
      sink = progress->sink();
    }
    const long long started_ms = epoch_ms();
    auto outcome = drive::run_build(plan, s, sink);
    // A torch extension's compiles against the whole step: what was the backend's and pip's.
    if (plan.kind == read::ProjectKind::extension && plan.governed() && !outcome.wheel_cache.hit)
      if (auto text = s.fs.read(plan.exec_log_path())) span_ = drive::compile_span(*text, started_ms, epoch_ms());
    if (progress) progress->finish();
    // Nothing of this build may stay in Slurm, however it ended. On a stop, only once the tree has
    // settled: an srun whose kiln exec died first still creates or ends its step as an orphan.
    if (int sig = io::BuildInterrupts::received()) return stopped(s, plan, interrupts, sig, json_);
    finish_slurm_once(s, plan);

    if (!outcome.ok)
      if (auto full = full_disk(plan)) std::ofstream(plan.log_path(), std::ios::app) << *full << "\n";
    binary::VerifyReport verified;
    if (outcome.ok) {
      verified = verify(s, plan, outcome);
      // A stop during verification is honoured too (it exited 0 after SIGTERM), --json or not.
      if (int sig = io::BuildInterrupts::received()) return stopped(s, plan, interrupts, sig, json_);
    }
    if (json_) {
      json j = outcome_json(plan, outcome, span_);
      bool ok = outcome.ok;
      if (outcome.ok) {
        const auto& v = verified;
        j["outcome"]["verify"] = verify_json(v);
        ok = v.ok();
        if (!ok) {  // the files were built but do not run where planned: the build failed
          j["outcome"]["ok"] = false;
          j["outcome"]["failed_step"] = "verify";
          j["outcome"]["exit_code"] = kFindings;
          j["outcome"]["diagnosis"] = {
              {"id", "kiln.verify-failed"}, {"cause", v.problems.front().why}, {"fix", v.problems.front().fix}};
        }
        if (auto why = no_cuda_failure(s, plan, v)) {
          ok = false;
          j["outcome"]["ok"] = false;
          j["outcome"]["failed_step"] = "no-cuda";
          j["outcome"]["diagnosis"] = {{"id", "kiln.no-cuda-built"}, {"cause", *why}, {"fix", nullptr}};
        }
        if (auto why = drive::nothing_compiled_failure(plan, outcome, span_ ? span_->units : -1, s)) {
          ok = false;
          j["outcome"]["ok"] = false;
          j["outcome"]["failed_step"] = "nothing-compiled";
          j["outcome"]["exit_code"] = kFindings;
          j["outcome"]["diagnosis"] = {{"id", "kiln.nothing-compiled"}, {"cause", *why}, {"fix", nullptr}};
        }
      }
      print_json(s.out, "build", std::move(j));
      return ok ? kOk : kFindings;
    }
    if (!outcome.ok) {
      print_failure(s, plan, outcome);
      return kFindings;
    }
    // Nothing compiled at all comes first: it is why no CUDA was compiled either.
    if (auto why = drive::nothing_compiled_failure(plan, outcome, span_ ? span_->units : -1, s)) {
      s.err << "kiln build: failed: " << *why << ". Full log: " << plan.log_path() << "\n";
      return kFindings;
    }
    if (auto why = no_cuda_failure(s, plan, verified)) {
      s.err << "kiln build: failed: " << *why << ". Full log: " << plan.log_path() << "\n";
      return kFindings;
    }
    print_summary(s, plan, outcome, verified, span_);
    return verified.ok() ? kOk : kFindings;
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

  static json diagnosis_json(const plan::Plan& p, const drive::BuildOutcome& o) {
    if (o.ok) return nullptr;
    auto d = diagnose_log(p);
    const auto* root = d.root_cause();
    if (!root && full_disk(p)) return {{"id", "resources.no-space"}, {"cause", *full_disk(p)}};
    if (!root) return {{"id", nullptr}, {"cause", "no known signature matched; see the log"}};
    return {{"id", root->signature->id}, {"line", root->first_line}, {"cause", root->cause}, {"fix", root->fix}};
  }

  static json outcome_json(const plan::Plan& p, const drive::BuildOutcome& o,
                           const std::optional<drive::CompileSpan>& span) {
    json artifacts = json::array();
    for (const auto& a : o.artifacts) artifacts.push_back(a);
    return {
        {"plan", plan::plan_to_json(p)},
        {"outcome",
         {{"ok", o.ok},
          {"failed_step", o.ok ? json(nullptr) : json(o.failed_step)},
          {"exit_code", o.exit_code},
          {"configure_s", o.configure_time.count() / 1000.0},
          {"build_s", o.build_time.count() / 1000.0},
          {"install_s", p.kind == read::ProjectKind::extension ? json(o.install_time.count() / 1000.0) : json(nullptr)},
          {"wheel", o.wheel.empty() ? json(nullptr) : json(o.wheel)},
          {"wheel_cache", o.wheel_cache.key.empty()
                              ? json(nullptr)
                              : json{{"key", o.wheel_cache.key},
                                     {"dir", o.wheel_cache.root.empty() ? json(nullptr) : json(o.wheel_cache.root)},
                                     {"hit", o.wheel_cache.hit},
                                     {"stored", o.wheel_cache.stored}}},
          {"steps", o.steps_run},
          {"up_to_date", o.ok && o.steps_run == 0 && p.kind == read::ProjectKind::cmake},
          {"configure_skipped", o.configure_skipped},
          {"peak_rss_bytes", o.peak_rss_kib * 1024},
          {"cache", o.has_cache_stats ? json{{"hits", o.cache.hits},
                                             {"local_hits", o.cache.local_hits()},
                                             {"misses", o.cache.misses},
                                             {"remote_hits", o.cache.remote_hits},
                                             {"hit_rate", o.cache.hit_rate()}}
                                      : json(nullptr)},
          {"artifacts", artifacts},
          {"compiles", span ? json{{"before_s", span->before_s},
                                   {"span_s", span->span_s},
                                   {"after_s", span->after_s},
                                   {"units", span->units}}
                            : json(nullptr)},
          {"log", p.log_path()},
          {"diagnosis", diagnosis_json(p, o)}}}};
  }

  // What the diagnosis needs to word its fix in this plan's terms.
  static diagnose::PlanContext plan_context(const plan::Plan& p) {
    diagnose::PlanContext c;
    c.jobs = p.jobs.jobs;
    c.memory_gib = p.governed() ? p.mem_budget_kib / 1048576.0 : p.jobs.budget_gib;
    // Next time: what memory allows without the governor, at most half of what was used.
    c.next_jobs = std::max(1, std::min(p.jobs.by_memory, p.jobs.jobs / 2));
    c.arch_list = core::format_torch(p.targets).value_or(core::format_cmake(p.targets));
    c.cuda_version = p.nvcc_version.substr(0, p.nvcc_version.rfind('.'));
    c.empty_submodules = p.empty_submodules;
    for (const auto& k : p.knobs.knobs)
      if (k.role == "force-build" && !k.on_value.empty() && c.force_build.empty())
        c.force_build = k.name + "=" + k.on_value;
    return c;
  }

  static diagnose::Diagnosis diagnose_log(const plan::Plan& p) {
    std::ifstream in(p.log_path(), std::ios::binary);
    diagnose::Options opts;
    opts.plan = plan_context(p);
    return diagnose::diagnose_stream(in, opts);
  }

  // A tool may fail on a full disk without saying so (CMake's own writes): the log gets a line the
  // diagnosis reads (resources.no-space) when the build folder's file system is (nearly) full.
  // (When the log itself could not be written, the same line is given beside the diagnosis.)
  static std::optional<std::string> full_disk(const plan::Plan& p) {
    const auto d = probe::StatvfsDiskQuery().space(p.build_dir);
    if (!d || d->free_bytes >= (1u << 20)) return std::nullopt;
    return fmt::format("kiln: disk full: {} has {} KiB free", p.build_dir, d->free_bytes / 1024);
  }

  static void print_failure(io::Seams& s, const plan::Plan& p, const drive::BuildOutcome& o) {
    s.err << fmt::format(
        "kiln build: {} failed ({}). Full log: {}\n\n", o.failed_step,
        o.term_signal ? fmt::format("killed by signal {}", o.term_signal) : fmt::format("exit {}", o.exit_code),
        p.log_path());
    // The root cause, with the lines that prove it and the fix in the plan's terms.
    const auto d = diagnose_log(p);
    diagnose::render_text(s.err, d, p.log_path(), {});
    if (auto full = full_disk(p); full && (!d.root_cause() || d.root_cause()->signature->id != "resources.no-space"))
      s.err << *full << ": the disk filled up; free space, or pass --build-dir on a larger disk\n";
  }

  // What the built binaries really hold, and whether they run on the planned GPUs with every
  // library they need resolvable: the same check as `kiln verify`.
  static binary::VerifyReport verify(io::Seams& s, const plan::Plan& p, const drive::BuildOutcome& o) {
    std::vector<std::pair<std::string, core::GpuModel>> gpus;
    for (const auto& g : p.gpus) gpus.emplace_back(g.name, g);
    binary::VerifyOptions opt;
    // Modules in the build tree are imported after the plan's interpreter's torch, as kiln verify
    // --python checks them.
    if (p.kind != read::ProjectKind::cmake) opt.python = p.python;
    auto report = binary::verify_files(o.artifacts, gpus, opt, s);
    // The project's own CUDA_ARCHITECTURES beat the plan's list: that line is what to change.
    for (auto& pr : report.problems)
      if (pr.kind == "no-kernel" && !p.knobs.cmake_archs.empty())
        pr.fix = fmt::format(
            "the project sets its own architectures ({}), which override the planned {}: change them "
            "to {} or remove them",
            p.knobs.cmake_archs, core::format_cmake(p.targets), core::format_cmake(p.targets));
    // A project may build no CUDA code at all (a C++ library, the cpu profile): not a failure of
    // the build, so it is said as a note in the summary instead.
    std::erase_if(report.problems, [](const binary::Problem& pr) { return pr.kind == "no-cuda"; });
    return report;
  }

  // A project with CUDA code whose build compiled none, though the plan has targets: the build
  // did not do what was asked (a switch off, a skip switch on, a GPU probe), so it fails, naming
  // the gate and the variable that turns it on.
  static std::optional<std::string> no_cuda_failure(io::Seams& s, const plan::Plan& p, const binary::VerifyReport& v) {
    if (!p.cuda() || !v.files.empty() || p.knobs.cuda_evidence.empty()) return std::nullopt;
    // What the machine has, so that the reason never blames a GPU probe where the driver lists a GPU.
    read::BuildMachine machine;
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

  static json verify_json(const binary::VerifyReport& v) {
    json files = json::array();
    for (const auto& f : v.files) {
      json gpus = json::array();
      for (const auto& g : f.gpus) gpus.push_back({{"gpu", g.gpu}, {"verdict", core::to_string(g.coverage.verdict)}});
      files.push_back({{"file", f.file}, {"archs", core::format_cmake(f.targets)}, {"gpus", gpus}});
    }
    json problems = json::array();
    for (const auto& pr : v.problems) problems.push_back(pr.line());
    return {{"ok", v.ok()}, {"files", files}, {"problems", problems}};
  }

  static void print_summary(io::Seams& s, const plan::Plan& p, const drive::BuildOutcome& o,
                            const binary::VerifyReport& v, const std::optional<drive::CompileSpan>& span) {
    // Built but not runnable where planned is a failed build: the first word says so.
    if (!v.ok()) s.out << "FAILED: the build finished but its files do not pass verification (below)\n";
    if (p.kind == read::ProjectKind::extension && o.wheel_cache.hit)
      s.out << fmt::format(
          "installed {} in {}: its wheel was built before from the same inputs (kiln's wheel cache, "
          "key {}); nothing compiled, --no-wheel-cache builds it\n",
          p.project_dir, seconds(o.build_time), o.wheel_cache.key.substr(0, 12));
    else if (p.kind == read::ProjectKind::extension)  // the backend runs and pip installs
      s.out << fmt::format("built {} in {} (wheel {}, pip install {}), {} compile step{}\n", p.project_dir,
                           seconds(o.build_time), seconds(o.build_time - o.install_time), seconds(o.install_time),
                           o.steps_run, o.steps_run == 1 ? "" : "s");
    else if (o.steps_run == 0)  // a no-op: say so, not "0 steps" and a 0% hit rate
      s.out << fmt::format("up to date: {} (nothing to build{}; {})\n", p.project_dir,
                           o.configure_skipped ? ", CMake not re-run" : "", seconds(o.configure_time + o.build_time));
    else
      s.out << fmt::format("built {} in {} (configure {}, build {}), {} step{}\n", p.project_dir,
                           seconds(o.configure_time + o.build_time),
                           o.configure_skipped ? std::string("skipped") : seconds(o.configure_time),
                           seconds(o.build_time), o.steps_run, o.steps_run == 1 ? "" : "s");
    if (span)
      s.out << fmt::format(
          "compiles  {:.1f}s of it ({} compiler run{}): the first began {:.1f}s in (the backend's start: Python, "
          "setup.py, import torch), the last ended {:.1f}s before the end (the wheel, pip install)\n",
          span->span_s, span->units, span->units == 1 ? "" : "s", span->before_s, span->after_s);
    s.out << fmt::format("targets   {}\n", core::format_cmake(p.targets));
    if (!o.wheel.empty()) s.out << "wheel     " << o.wheel << "  (installed)\n";
    s.out << fmt::format("peak RSS  {} MiB (largest single process)\n", o.peak_rss_kib / 1024);
    if (o.has_cache_stats && o.cache.hits + o.cache.misses > 0)
      s.out << fmt::format("ccache    {} hits{}, {} misses ({:.0f}% hit rate)\n", o.cache.hits,
                           o.cache.remote_hits
                               ? fmt::format(" ({} local, {} remote)", o.cache.local_hits(), o.cache.remote_hits)
                               : std::string(),
                           o.cache.misses, 100.0 * o.cache.hit_rate());
    for (const auto& a : o.artifacts) {
      std::string line = "  " + a;
      for (const auto& f : v.files)
        if (f.file == a) {
          line += "  [" + core::format_cmake(f.targets) + "]";
          for (const auto& g : f.gpus) line += fmt::format("  {}: {}", g.gpu, core::to_string(g.coverage.verdict));
        }
      s.out << line << "\n";
    }
    if (v.files.empty() && p.cuda())
      s.out << "note: no built file holds CUDA code (kiln sees no CUDA source in the project), so nothing was checked "
               "against the GPUs\n";
    else if (v.ok())
      s.out << fmt::format("verified  {} file{}: {}every library resolves\n", v.files_checked,
                           v.files_checked == 1 ? "" : "s",
                           p.gpus.empty() ? "" : "every planned GPU has a kernel image, ");
    for (const auto& pr : v.problems) s.out << "verify: " << pr.line() << "\n";
    s.out << "log       " << p.log_path() << "\n";
    if (!v.ok()) s.err << "kiln build: FAILED: verify: " << v.problems.front().line() << "\n";
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
