#include "launch/slurm_step.hpp"

#include <climits>

#include <unistd.h>

#include <csignal>

#include <algorithm>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <sstream>

#include "core/text.hpp"
#include "core/fnv.hpp"
#include "core/epoch_ms.hpp"
#include "core/launcher_env.hpp"
#include "launch/running_units.hpp"
#include "launch/slurm_nodes.hpp"

namespace kiln::launch {
namespace {

// The allocation's state as squeue says it; "" when squeue no longer knows the job (it ended).
std::string allocation_state(const SlurmConfig& c, io::Seams& s) {
  auto r = s.proc.run({.argv = {c.squeue, "-h", "-j", c.job_id, "-o", "%T"}});
  return r.ok() ? std::string(core::trim_right(r.out)) : "";
}

}  // namespace

std::string node_named_by_srun(const std::string& err) {
  std::istringstream in(err);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("srun: ", 0) != 0) continue;  // the compiler's own lines may say anything
    // "srun: error: n1: task 0: Killed"
    if (const auto task = line.find(": task ");
        line.rfind("srun: error: ", 0) == 0 && task != std::string::npos && line.find(' ', 13) >= task)
      return line.substr(13, task - 13);
    for (const char* marker : {"failed on node ", "Node failure on ", "on node "}) {
      const auto at = line.find(marker);
      if (at == std::string::npos) continue;
      const auto b = at + std::string(marker).size();
      return line.substr(b, line.find_first_of(" :,", b) - b);
    }
  }
  return "";
}

std::optional<SlurmConfig> slurm_config(const io::Environment& env) {
  const auto kiln = core::LauncherEnv::from_env(env);
  if (!kiln.slurm_units) return std::nullopt;
  SlurmConfig c;
  c.job_id = env.get("SLURM_JOB_ID").value_or("");
  c.self = kiln.slurm_self;
  c.reports = kiln.slurm_reports;
  if (c.job_id.empty() || c.self.empty() || c.reports.empty()) return std::nullopt;
  c.tag = kiln.slurm_tag.empty() ? "kiln" : kiln.slurm_tag;
  if (!kiln.slurm_srun.empty()) c.srun = kiln.slurm_srun;
  if (!kiln.slurm_squeue.empty()) c.squeue = kiln.slurm_squeue;
  if (!kiln.slurm_sinfo.empty()) c.sinfo = kiln.slurm_sinfo;
  for (auto& [node, cpus] : parse_slurm_nodes(kiln.slurm_nodes)) {
    c.nodes.push_back(node);
    c.cpus.push_back(cpus);
  }
  if (auto n = kiln.slurm_retries) c.retries = static_cast<int>(std::clamp(*n, 0LL, 10LL));
  if (auto n = kiln.slurm_node_mem_kib) c.node_mem_kib = *n;
  if (auto n = kiln.slurm_node_cpus) c.node_cpus = static_cast<int>(std::clamp(*n, 0LL, 1LL << 20));
  if (auto n = kiln.slurm_step_wait) c.step_wait_s = static_cast<int>(std::clamp(*n, 1LL, 86400LL));
  return c;
}

std::optional<RoomLeft> room_left(const SlurmConfig& c, const io::Filesystem& fs) {
  RoomLeft r;
  r.dead = noted_dead_nodes(fs, c.reports);
  if (r.dead.empty()) return std::nullopt;
  for (size_t i = 0; i < c.nodes.size(); ++i)
    if (std::find(r.dead.begin(), r.dead.end(), c.nodes[i]) == r.dead.end() && i < c.cpus.size() && c.cpus[i] > 0)
      r.cpus += c.cpus[i], ++r.nodes;
  return r;
}

std::vector<std::string> step_argv(const SlurmConfig& c, const StepAsk& ask, const std::vector<std::string>& command) {
  std::uint64_t kib = std::max<std::uint64_t>(ask.mem_kib, 1024);
  if (c.node_mem_kib) kib = std::min(kib, c.node_mem_kib);  // more than a node has would never start
  int cores = std::max(1, ask.cores);
  if (c.node_cpus) cores = std::min(cores, c.node_cpus);  // the grant counts the whole allocation's cores
  std::vector<std::string> argv = {c.srun,
                                   "--jobid=" + c.job_id,
                                   "--job-name=" + c.tag,
                                   "-N1",
                                   "-n1",
                                   "--exact",
                                   "-c" + std::to_string(cores),
                                   fmt::format("--mem={}M", (kib + 1023) / 1024),
                                   "--immediate=" + std::to_string(c.slice_s()),
                                   "--quit-on-interrupt",
                                   "--quiet"};
  if (ask.overlap) argv.push_back("--overlap");
  if (!ask.exclude.empty()) argv.push_back("--exclude=" + core::join(ask.exclude, ","));
  argv.insert(argv.end(), {"--", c.self, "exec", "--"});
  argv.insert(argv.end(), command.begin(), command.end());
  return argv;
}

std::optional<StepReport> parse_step_report(const std::string& text) {
  StepReport r;
  std::istringstream in(text);
  bool any = false;
  for (std::string line; std::getline(in, line);) {
    const auto eq = line.find('=');
    if (eq == std::string::npos) continue;
    const std::string k = line.substr(0, eq), v = line.substr(eq + 1);
    any = true;
    const auto n = core::parse_int(v);
    const bool numeric = k == "exit" || k == "peak_rss_kib" || k == "cpu_ms" || k == "wall_ms";
    if (numeric && (!n || (k == "exit" && (*n < INT_MIN || *n > INT_MAX))))
      return std::nullopt;  // a torn line: treat the whole report as missing
    if (k == "node")
      r.node = v;
    else if (k == "step")
      r.step = v;
    else if (k == "exit")
      r.exit = static_cast<int>(*n), r.finished = true;
    else if (k == "peak_rss_kib")
      r.peak_rss_kib = static_cast<long>(*n);
    else if (k == "cpu_ms")
      r.cpu_ms = static_cast<long>(*n);
    else if (k == "wall_ms")
      r.wall_ms = static_cast<long>(*n);
  }
  if (!any) return std::nullopt;
  return r;
}

std::string format_step_report(const StepReport& r) {
  std::string out = fmt::format("node={}\nstep={}\n", r.node, r.step);
  if (r.finished)
    out +=
        fmt::format("peak_rss_kib={}\ncpu_ms={}\nwall_ms={}\nexit={}\n", r.peak_rss_kib, r.cpu_ms, r.wall_ms, r.exit);
  return out;
}

int run_step_on_node(const std::vector<std::string>& command, const std::string& report_path, io::Seams& s) {
  StepReport rep;
  rep.node = s.env.get("SLURMD_NODENAME").value_or("?");
  rep.step = s.env.get("SLURM_JOB_ID").value_or("?") + "." + s.env.get("SLURM_STEP_ID").value_or("?");
  s.fs.write(report_path, format_step_report(rep));
  // kiln build's progress line and ETA: the compile runs from now, not since srun began to wait.
  mark_step_started(s.fs, core::LauncherEnv::from_env(s.env).step_running, rep.node, core::epoch_ms());
  if (command.empty()) return 127;
  io::ProcessSpec spec{.argv = command};
  spec.inherit_stdio = true;
  spec.die_with_caller = true;
  auto r = s.proc.run(spec);
  if (!r.started) {
    s.err << "kiln exec: cannot run " << command[0] << " on " << rep.node << ": " << r.spawn_error << "\n";
    rep.exit = 127;
  } else {
    rep.exit = r.term_signal ? 128 + r.term_signal : r.exit_code;
  }
  rep.finished = true;
  rep.peak_rss_kib = r.peak_rss_kib;
  rep.cpu_ms = r.cpu.count();
  rep.wall_ms = r.wall.count();
  s.fs.write(report_path, format_step_report(rep));
  return rep.exit;
}

namespace {

std::string unit_name(const std::string& output) { return output.empty() ? std::string("the unit") : output; }

std::string srun_end(const io::ProcessResult& r) {
  return r.term_signal ? fmt::format("signal {}", r.term_signal) : fmt::format("exit {}", r.exit_code);
}

void exclude(StepAsk& ask, const std::vector<std::string>& nodes) {
  for (const auto& n : nodes)
    if (!n.empty() && std::find(ask.exclude.begin(), ask.exclude.end(), n) == ask.exclude.end())
      ask.exclude.push_back(n);
}

// Where kiln stops because nodes died: one line naming them, saying the state is resumable.
std::string dead_nodes_stop(const SlurmConfig& c, const NodeHealth& h, const std::string& what) {
  return fmt::format(
      "{}: {} {} of Slurm allocation {} {} dead ({}): the build stops here; Ninja's state is intact, so "
      "`kiln build --slurm` in a new allocation resumes it",
      what, h.dead.size() > 1 ? "nodes" : "node", fmt::join(h.dead_names(), ", "), c.job_id,
      h.dead.size() > 1 ? "are" : "is", h.left.empty() ? "no node is left" : "sinfo: " + h.dead_text());
}

// One srun: the unit as a step, its report read back (and removed).
std::optional<StepReport> one_step(const SlurmConfig& c, const StepAsk& ask, const io::ProcessSpec& spec,
                                   const std::string& report, io::ProcessResult& r, io::Seams& s) {
  io::ProcessSpec step = spec;
  step.argv = step_argv(c, ask, spec.argv);
  auto env = spec.env.value_or(s.env.all());
  env[std::string(core::launcher_vars::kStepReport)] = report;
  env.erase(std::string(core::launcher_vars::kSlurmUnits));  // the node side must not launch steps of its own
  step.env = env;
  // srun's output is the compiler's, relayed; srun's own error lines name a node that failed a
  // step before the node side could report ("Task launch ... failed on node n2: ...").
  step.inherit_stdio = false;
  step.on_line = nullptr;
  r = s.proc.run(step);
  s.out << r.out;
  s.err << r.err;
  auto rep = s.fs.read(report) ? parse_step_report(*s.fs.read(report)) : std::nullopt;
  s.fs.remove(report);
  return rep;
}

}  // namespace

StepRun run_as_step(const SlurmConfig& c, const StepAsk& ask_in, const io::ProcessSpec& spec, const std::string& output,
                    io::Seams& s) {
  StepRun run;
  StepAsk ask = ask_in;
  s.fs.make_dirs(c.reports);
  const std::string base = fmt::format("{}/{:016x}-{}", c.reports,
                                       core::fnv1a64(output + (spec.argv.empty() ? "" : spec.argv.back())), ::getpid());
  long waited_ms = 0, queued_ms = 0;  // waiting for a start: this attempt's, and the unit's
  int sruns = 0, lost = 0, timeouts = 0;
  run.attempts = 1;
  for (;;) {
    io::ProcessResult r;
    auto rep = one_step(c, ask, spec, fmt::format("{}-{}", base, ++sruns), r, s);
    if (rep && rep->finished) {
      run.node = rep->node;
      run.step = rep->step;
      run.result = r;
      run.result.exit_code = rep->exit;  // already 128 + signal when the compiler was killed
      run.result.term_signal = 0;
      run.result.peak_rss_kib = rep->peak_rss_kib;
      run.result.cpu = std::chrono::milliseconds(rep->cpu_ms);
      run.queued_ms = queued_ms + std::max<long>(0, r.wall.count() - rep->wall_ms);
      // The compile's own time on the node: srun's also holds Slurm's placing it (queued_ms), and
      // kiln report's lanes charge a node with this alone, not the attempts lost elsewhere.
      run.result.wall = std::chrono::milliseconds(rep->wall_ms);
      return run;
    }
    // The compiler never finished: whatever it wrote is not an object Ninja may trust.
    if (!output.empty()) s.fs.remove(output);
    const bool never_started = !rep && r.err.find("Unable to create step") != std::string::npos;
    const std::string node = rep ? rep->node : node_named_by_srun(r.err);
    if (!node.empty() && !never_started) run.failed_nodes.push_back(node);
    run.result = r;
    if (!r.started) {
      run.error = fmt::format("cannot run {}: {}", c.srun, r.spawn_error);
    } else if (r.term_signal == SIGINT || r.term_signal == SIGTERM || r.term_signal == SIGHUP) {
      run.error = "stopped";  // the build is being stopped: nothing to retry
    } else if (const auto state = allocation_state(c, s); state != "RUNNING") {
      run.error = fmt::format(
          "the Slurm allocation {} has ended ({}): the build stops here; Ninja's state is intact, so "
          "`kiln build --slurm` in a new allocation resumes it",
          c.job_id, state.empty() ? "no longer known to squeue" : state);
    } else if (const auto health = allocation_health(c.sinfo, c.nodes, s); health.known && health.left.empty()) {
      run.error = dead_nodes_stop(c, health, unit_name(output) + " cannot run");
    } else if (never_started) {
      // srun gave up waiting (--immediate): nothing ran, nothing was lost. At least a slice went by
      // (an answer at once counts as one, so a refusal does not spin).
      const long slice_ms = std::max<long>(r.wall.count(), c.slice_s() * 1000L);
      waited_ms += slice_ms;
      queued_ms += slice_ms;
      exclude(ask, health.dead_names());
      note_dead_nodes(s.fs, c.reports, health);
      if (!health.dead.empty() && ask.overlap) {
        run.error = dead_nodes_stop(
            c, health,
            fmt::format("{} did not start as a Slurm step on the nodes left ({}) within {} s, even beside "
                        "other steps (--overlap)",
                        unit_name(output), fmt::join(health.left, ", "), c.slice_s()));
      } else if (!health.dead.empty()) {
        // A job that lost a node may never give its cores back to new steps (seen with Slurm 22.05).
        ask.overlap = true;
        ++run.attempts;
        s.err << fmt::format(
            "kiln exec: warning: node {} of Slurm allocation {} is dead ({}); {} did not start within {} s: asking "
            "Slurm again on the nodes left beside the other steps (--exclude={} --overlap)\n",
            fmt::join(health.dead_names(), ", "), c.job_id, health.dead_text(), unit_name(output), c.slice_s(),
            fmt::join(ask.exclude, ","));
        continue;
      } else if (waited_ms < c.step_wait_s * 1000L) {
        continue;  // every node alive: the allocation is busy, wait on (bounded by step_wait_s)
      } else if (++timeouts <= c.retries) {
        waited_ms = 0;
        ++run.attempts;
        continue;
      } else {
        run.error = fmt::format(
            "{} did not start as a Slurm step within {} s, {} time(s): the allocation's CPUs or memory stayed "
            "held by other steps (squeue -s -j {} lists them: another build in this allocation, or a step that "
            "never ends); set KILN_SLURM_STEP_WAIT=SECONDS to wait longer",
            unit_name(output), c.step_wait_s, timeouts, c.job_id);
      }
    } else if (++lost > c.retries) {
      run.error = fmt::format(
          "{} did not finish in {} attempt(s): the step was killed or lost its node ({}); srun {}", unit_name(output),
          run.attempts,
          run.failed_nodes.empty() ? std::string("node unknown") : "on " + core::join(run.failed_nodes, ", "),
          r.term_signal ? fmt::format("killed by signal {}", r.term_signal) : fmt::format("exit {}", r.exit_code));
    } else {
      exclude(ask, {node});
      exclude(ask, health.dead_names());
      note_dead_nodes(s.fs, c.reports, health);
      ++run.attempts;
      waited_ms = 0;
      s.err << fmt::format("kiln exec: warning: {} was lost on {} (srun {}); retrying on another node{}\n",
                           output.empty() ? std::string("a unit") : output, node.empty() ? "an unknown node" : node,
                           srun_end(r),
                           health.dead.empty() ? "" : fmt::format(" (dead per sinfo: {})", health.dead_text()));
      continue;
    }
    if (run.error != "stopped") s.err << "kiln exec: error: " << run.error << "\n";
    run.node = core::join(run.failed_nodes, ",");
    if (run.result.started && run.result.exit_code == 0 && !run.result.term_signal) run.result.exit_code = 1;
    return run;
  }
}

}  // namespace kiln::launch
