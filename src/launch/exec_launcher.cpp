#include "launch/exec_launcher.hpp"

#include "core/text.hpp"
#include "core/fnv.hpp"

#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <map>
#include <set>
#include <sstream>
#include <thread>

#include "core/arch_spec.hpp"
#include "core/epoch_ms.hpp"
#include "core/launcher_env.hpp"
#include "io/task_table.hpp"
#include "probe/build_memory.hpp"
#include "launch/gencode_rewrite.hpp"
#include "launch/compile_pool.hpp"
#include "launch/exec_record.hpp"
#include "launch/governor.hpp"
#include "launch/learned_cost.hpp"
#include "launch/running_units.hpp"
#include "launch/slurm_step.hpp"
#include "launch/step_cpus.hpp"
#include "launch/thread_grant.hpp"
#include "launch/thread_share.hpp"
#include "launch/unit_plan.hpp"
#include "launch/unit_priority.hpp"
#include "launch/unit_weight.hpp"

namespace kiln::launch {
namespace {

bool is_nvcc(const std::vector<std::string>& args) {
  for (const auto& a : args)
    if (core::base_name(a) == "nvcc") return true;
  return false;
}

// One write with O_APPEND: concurrent launchers never interleave within a line.
void append_line(const std::string& path, const std::string& line) {
  int fd = ::open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return;
  ssize_t n = ::write(fd, line.data(), line.size());
  (void)n;
  ::close(fd);
}

// A ledger lock is held for microseconds; one held for seconds belongs to a stopped or hung process.
constexpr std::chrono::milliseconds kLedgerLockTimeout{5000};

using core::epoch_ms;

}  // namespace

std::string output_of(const std::vector<std::string>& args) {
  for (size_t i = 0; i + 1 < args.size(); ++i)
    if (args[i] == "-o") return args[i + 1];
  for (const auto& a : args)
    if (a.size() > 2 && a.rfind("-o", 0) == 0 && a[2] != '-') return a.substr(2);
  return "";
}

std::string source_of(const std::vector<std::string>& args) {
  for (const char* ext : {".cu", ".cpp", ".cc", ".cxx", ".c", ".C"})
    for (const auto& a : args)
      if (a[0] != '-' && core::ends_with(a, ext)) return a;
  return "";
}

bool compiles_a_source(const std::vector<std::string>& args) {
  static const std::set<std::string> kCompile = {"-c", "--compile", "-dc", "--device-c", "-dw", "--device-w"};
  return std::any_of(args.begin(), args.end(), [](const std::string& a) { return kCompile.count(a) > 0; });
}

int device_targets_of(const std::vector<std::string>& args) {
  if (!is_nvcc(args)) return 0;
  auto set = core::parse_nvcc_args(split_arch_args(args).arch, {});
  return set ? std::max<int>(1, static_cast<int>(set->size())) : 1;
}

std::vector<std::string> ccache_friendly_nvcc_args(const std::vector<std::string>& args) {
  if (!is_nvcc(args)) return args;
  std::vector<std::string> out;
  for (const auto& a : args) {
    if (a == "--generate-dependencies-with-compile")
      out.push_back("-MD");
    else if (a == "--dependency-output")
      out.push_back("-MF");
    else if (a.rfind("--dependency-output=", 0) == 0)
      out.push_back("-MF"), out.push_back(a.substr(20));
    else
      out.push_back(a);
  }
  return out;
}

std::uint64_t expected_peak_kib(const io::Filesystem& fs, const std::string& history_dir,
                                const std::vector<std::string>& args) {
  // 10% headroom over what this unit peaked at last time.
  if (auto h = read_history(fs, history_dir, output_of(args)); h && h->peak_kib > 0)
    return static_cast<std::uint64_t>(h->peak_kib * 1.1);
  const int targets = device_targets_of(args);
  const double gib =
      targets > 0 ? probe::gib_per_job(probe::JobKind::cuda, targets) : probe::gib_per_job(probe::JobKind::cxx, 0);
  return static_cast<std::uint64_t>(gib * 1024 * 1024);
}

namespace {

int build_cores(const io::Environment& env) {
  if (auto n = core::LauncherEnv::from_env(env).cores; n && *n > 0)
    return static_cast<int>(std::min<std::uint64_t>(*n, 4096));
  return std::max(1u, std::thread::hardware_concurrency());
}

// kiln build --slurm: the unit runs as a job step, asking for its expected peak and granted cores.
io::ProcessResult run_slurm_unit(const SlurmConfig& c, const io::ProcessSpec& spec, ExecRecord& rec, io::Seams& s) {
  auto step = run_as_step(
      c, StepAsk{.mem_kib = rec.expected_kib, .cores = rec.step_cpus > 0 ? rec.step_cpus : rec.cores, .exclude = {}},
      spec, rec.output, s);
  rec.node = step.node;
  rec.attempts = step.attempts;
  // Under the compiler's errors in the build log: a unit that fails on one node may be that node's
  // fault (another compiler, other headers there), so the diagnosis names it.
  if (step.error.empty() && step.result.exit_code != 0)
    s.err << fmt::format("kiln exec: {} failed on node {} (Slurm step {}, exit {})\n",
                         rec.output.empty() ? std::string("the unit") : rec.output, step.node, step.step,
                         step.result.exit_code);
  rec.waited_ms += step.queued_ms;  // like the governor's wait: admission, not work
  return step.result;
}

}  // namespace

namespace {

// The units the build's plan (KILN_UNIT_PLAN) says start soon beside this one, with their work;
// each unit's work is worked out once per launch (the decision is retried while memory is short).
class ComingUnits {
public:
  static constexpr size_t kMaxComingUnits = 256;
  ComingUnits(const io::Seams& s, const std::string& me, int targets) : s_(s), me_(me), targets_(targets) {
    if (auto path = core::LauncherEnv::from_env(s.env).unit_plan; !path.empty())
      if (auto text = s.fs.read(path)) plan_ = parse_unit_plan(*text);
  }
  // Beside this unit: the work of the units expected to start (for its share), and how many of the
  // plan's units wait for a slot (rule 6 of thread_grant), of their Ninja's or of the pool's.
  // `pool_room`: the slots of the build's pool (launch/compile_pool) left beside this unit, which
  // go to the heaviest of the units their Ninjas may start; nullopt without a pool. Worked out
  // once per try: each try holds the ledger's lock.
  struct Around {
    std::vector<UnitWork> work;
    int waiting = 0;
  };
  Around around(const std::vector<Reservation>& running, std::optional<int> pool_room) {
    const auto outputs = running_outputs(running);
    const auto may_start = starting_soon(plan_, outputs, me_);
    const auto units = soon(may_start, pool_room);
    Around a;
    for (const auto& u : units) {
      // Eight extensions' Ninjas at -j 16 list a hundred units: a few times the cores say as much
      // about the share, and each unit's estimate reads its source and headers.
      if (a.work.size() >= kMaxComingUnits) break;
      a.work.push_back(planned_work(u));
    }
    a.waiting = units_waiting(plan_, outputs, me_) + static_cast<int>(may_start.size() - units.size());
    return a;
  }
  // The plan lists this unit, so what waits beside it is known (rule 6b of thread_grant).
  bool lists_me() const {
    return std::any_of(plan_.units.begin(), plan_.units.end(), [&](const PlannedUnit& u) { return u.output == me_; });
  }
  // The plan's units that may start beside this one now, within their Ninja's -j (a Slurm step's
  // CPUs); nullopt without a plan.
  std::optional<int> beside(const std::vector<Reservation>& running) const {
    if (!lists_me()) return std::nullopt;
    return static_cast<int>(starting_soon(plan_, running_outputs(running), me_).size());
  }

private:
  const UnitWork& planned_work(const PlannedUnit& u) {
    auto [it, fresh] = memo_.try_emplace(u.output);
    if (fresh)
      it->second = {estimate_work(s_.fs, u.source, u.cuda ? targets_ : 0),
                    learned_cpu(learned_cost(s_.fs, HistoryPlaces::from_env(s_.env), u.output, u.source).history),
                    !u.cuda};
    return it->second;
  }
  // Of the units their Ninjas' -j lets start beside this one, those expected to: under a pool, those
  // its free slots take (the heaviest).
  std::vector<PlannedUnit> soon(std::vector<PlannedUnit> units, std::optional<int> pool_room) {
    if (!pool_room || units.size() <= static_cast<size_t>(std::max(0, *pool_room))) return units;
    // Each unit's estimate reads its source and headers: the pool's few slots go to the heaviest
    // of the first kMaxComingUnits.
    if (units.size() > kMaxComingUnits) units.resize(kMaxComingUnits);
    std::vector<UnitWork> works;
    for (const auto& u : units) works.push_back(planned_work(u));
    return pool_takes(units, unit_weights(works).w, *pool_room);
  }
  std::set<std::string> running_outputs(const std::vector<Reservation>& running) const {
    std::set<std::string> keys, out;
    for (const auto& r : running) keys.insert(r.field("unit"));
    for (const auto& u : plan_.units)
      if (keys.count(history_key(u.output))) out.insert(u.output);
    return out;
  }

  const io::Seams& s_;
  std::string me_;
  int targets_;
  UnitPlan plan_;
  std::map<std::string, UnitWork> memo_;
};

// What one launch holds between admission and the record: the ledger it reserved in, the time
// file nvcc writes, and what the unit did last time.
struct Launch {
  ExecRecord rec;
  std::optional<FileLedger> ledger;
  bool reserved = false;
  std::string time_file;
  std::optional<UnitHistory> history_before;
  std::string units_dir, unit_id;  // the user's history of this unit in any checkout (portable_unit_id)
  std::optional<int> share_nice;   // one CPU weight shared by its running threads (KILN_CPU_SHARE)
  int share_threads = 1;           // the threads that weight stands for
};

// The threads a grant's CPU weight stands for: rule 6b's weigh as the unit's own.
int weighed_threads(const Grant& g) { return g.weigh_threads > 0 ? g.weigh_threads : g.cores; }

// The compiles beside this one, for its priority: those running with the threads they were
// granted, and those coming with the share they can expect (rule 5 of thread_grant).
std::vector<PeerUnit> peers(const UnitWork& me, const std::vector<Reservation>& running,
                            const std::vector<UnitWork>& coming, int cores, const GrantPolicy& policy) {
  const auto members = sharing_units(running, me, coming);
  const auto threads = share_threads(members, cores, policy);
  std::vector<PeerUnit> out;
  for (size_t i = 0; i < running.size(); ++i) out.push_back({members[i], std::max(1, running[i].threads)});
  for (size_t i = running.size() + 1; i < members.size(); ++i) out.push_back({members[i], threads[i]});
  return out;
}

// kiln's own rewrites of the command: planned architectures only (--prune-archs), targets torch
// cannot spell (plan/python_env), and dependency flags ccache understands.
std::vector<std::string> rewrite_command(std::vector<std::string> argv, const io::Seams& s, ExecRecord& rec) {
  const bool nvcc = is_nvcc(argv);
  const auto kiln = core::LauncherEnv::from_env(s.env);
  if (!kiln.prune_archs.empty() && nvcc) {
    if (auto planned = core::parse_cmake(kiln.prune_archs, {})) {
      auto r = prune_arch_args(argv, *planned);
      if (r.changed) {
        argv = r.args;
        rec.pruned = true;
      }
    }
  }
  if (!kiln.extra_archs.empty() && is_nvcc(argv))
    if (auto set = core::parse_cmake(kiln.extra_archs, {})) argv = add_arch_args(argv, *set).args;
  return ccache_friendly_nvcc_args(argv);
}

// Marks a reservation whose compile runs as a Slurm job step (its cores are a node's, not here),
// and the CPUs that step asked (launch/step_cpus).
constexpr const char* kStepField = "step";
constexpr const char* kStepCpusField = "step_cpus";

int asked_cpus(const Reservation& r) {
  const auto n = core::parse_int(r.field(kStepCpusField));
  return n && *n > 0 && *n < (1 << 20) ? static_cast<int>(*n) : std::max(1, r.threads);
}

// This build's steps running now (the ledger's reservations marked as steps): the CPUs they asked,
// how many they are, the memory they reserved.
struct StepsRunning {
  int cpus = 0, steps = 0;
  std::uint64_t kib = 0;
};
StepsRunning steps_running(const std::vector<Reservation>& running) {
  StepsRunning out;
  for (const auto& r : running)
    if (r.field(kStepField) == "1") out.cpus += asked_cpus(r), out.kib += r.kib, ++out.steps;
  return out;
}

// The room a new step asks its CPUs from: the allocation's (live) CPUs and this build's steps.
StepRoom step_room(const SlurmConfig& c, const std::optional<RoomLeft>& left, const StepsRunning& steps,
                   std::optional<int> beside) {
  StepRoom room{
      .asked_by_running = steps.cpus, .running_steps = steps.steps, .beside = beside, .node_cpus = c.node_cpus};
  if (left)
    room.alloc_cpus = left->cpus;
  else if (std::none_of(c.cpus.begin(), c.cpus.end(), [](int n) { return n <= 0; }))
    for (int n : c.cpus) room.alloc_cpus += n;
  return room;
}

// kiln build --slurm once a node died (issue 35: Ninja's -j still counted it, and the units past
// the live nodes' CPUs waited in srun, then ran beside the others): a unit runs as a step only
// while the steps running leave it its `cpus` and its memory (`kib`) on the nodes left; otherwise
// it waits here, under the governor, as any unit waits for memory. The first wait is said once.
bool slurm_room(const SlurmConfig& c, const std::optional<RoomLeft>& left, const StepsRunning& steps, int cpus,
                std::uint64_t kib, io::Seams& s, const ExecRecord& rec, bool& said) {
  if (!left || left->cpus <= 0) return true;  // nothing dead; or no CPU known: the watchdog decides
  const std::uint64_t mem = c.node_mem_kib * static_cast<std::uint64_t>(left->nodes);
  if (steps.steps == 0 || (steps.cpus + cpus <= left->cpus && (mem == 0 || steps.kib + kib <= mem))) return true;
  if (!said)
    s.err << fmt::format(
        "kiln exec: node {} of Slurm allocation {} is dead: {} waits here for one of the {} CPUs left ({} in use "
        "by this build's steps)\n",
        fmt::join(left->dead, ", "), c.job_id, rec.output.empty() ? "the unit" : rec.output, left->cpus, steps.cpus);
  said = true;
  return false;
}

// The thread grant and the priority a compile was admitted with, in its record.
void record_grant(ExecRecord& rec, const Grant& grant, const Priority& priority, bool has_kernels) {
  rec.split = grant.split;
  rec.threads = grant.threads;
  rec.cores = grant.cores;
  rec.grant = grant.why;
  rec.grant_basis = grant.basis;
  rec.grant_share = grant.share;
  rec.grant_units = grant.units;
  // Rule 6b's threads weigh as its own: a nicer compile, or (shared) one weight for its own threads.
  rec.nice = std::min(19, priority.nice + (has_kernels ? grant.nice_raise : 0));
  if (!priority.why.empty()) rec.grant += (rec.grant.empty() ? "" : "; ") + priority.why;
}

// Waits under the memory governor until the compile's expected peak fits the budget, with a
// thread grant for nvcc when there are idle cores. Returns the nvcc flags of the grant.
std::string admit(const std::vector<std::string>& argv, io::Seams& s, Launch& l, bool nvcc,
                  const std::string& user_append, const std::string& ledger_path, std::uint64_t budget,
                  const std::optional<SlurmConfig>& slurm) {
  ExecRecord& rec = l.rec;
  const auto kiln = core::LauncherEnv::from_env(s.env);
  const bool governed = kiln.split;  // kiln build's thread grants are on
  const bool split = nvcc && governed;
  std::string flags;
  l.ledger.emplace(ledger_path, io::system_processes(), kLedgerLockTimeout);
  const long pid = static_cast<long>(::getpid());
  UnitShape unit{.nvcc = nvcc,
                 .device_targets = rec.archs,
                 .project = project_threads(argv, user_append),
                 .base_kib = rec.expected_kib,
                 .serial_cpu_ms = std::nullopt,
                 .estimate = 0};
  if (l.history_before && l.history_before->cpu_ms >= 0) unit.serial_cpu_ms = l.history_before->cpu_ms;
  // Host units too: the next nvcc unit weighs them (rule 5 of thread_grant).
  // Device code with no kernel launches (cuBLAS calls, host code in a .cu) gains nothing from a
  // split: for its priority it runs on one thread whatever it was granted.
  bool has_kernels = false;
  // One pool of slots for the build's compiles, whichever Ninja started them; a Slurm step is
  // bounded by the allocation instead.
  const auto pool = slurm || !compiles_a_source(argv) ? std::nullopt : compile_pool(kiln);
  if (governed || pool) {
    const auto est = estimate_unit(s.fs, rec.source, rec.archs);
    unit.estimate = est.seconds;
    has_kernels = est.launches > 0;
  }
  ComingUnits coming(s, rec.output, rec.archs);
  const int cores = build_cores(s.env);
  const auto policy = GrantPolicy::from_data();
  Grant grant;
  Priority priority;
  Reservation plain{pid, rec.expected_kib};
  const long long since = epoch_ms();
  const auto waits = pool ? enter_pool(*l.ledger, *pool, pid, since, unit.work(), plain) : Reservation{};
  Reservation decided = plain;
  auto pause = kPoolPoll;  // before the next try
  bool said_slurm = false;
  int step_asks = 1;
  auto g = acquire_decided(
      *l.ledger, s.clock, pid,
      [&](const std::vector<Reservation>& running) -> std::optional<Reservation> {
        const long long now = epoch_ms();
        std::optional<int> pool_room;  // the pool's slots left beside this unit
        if (pool) {
          const auto turn = pool_turn(*pool, running, l.ledger->waiting(), unit.work(), pid, since, now);
          pause = pool_pause(*pool, turn);
          // What it waits for, if it waits: a slot, or (its turn come) memory.
          waits_for(*l.ledger, waits, turn.go ? PoolWait::memory : PoolWait::slot);
          if (!turn.go) return std::nullopt;
          pool_room = pool->jobs - turn.taken - 1;
        }
        const auto around = governed ? coming.around(running, pool_room) : ComingUnits::Around{};
        const auto& soon = around.work;
        Idle idle;
        if (split) idle.waiting = around.waiting, idle.planned = coming.lists_me();
        grant = split ? decide_grant(unit, running, cores, budget, now, policy, soon, idle)
                      : Grant{.kib = rec.expected_kib};
        if (!split) grant.why.clear();
        // Host compiles too: on a full machine they yield to the long nvcc units.
        if (governed)
          priority = decide_priority(unit.work(), has_kernels ? weighed_threads(grant) : 1,
                                     peers(unit.work(), running, soon, cores, policy), policy.priority);
        if (!admits(running, grant.kib, budget)) return std::nullopt;
        if (slurm) {
          const auto left = room_left(*slurm, s.fs);
          const auto steps = steps_running(running);
          step_asks = step_cpus(weighed_threads(grant), step_room(*slurm, left, steps, coming.beside(running)));
          if (!slurm_room(*slurm, left, steps, step_asks, grant.kib, s, rec, said_slurm)) return std::nullopt;
        }
        Reservation r{pid, grant.kib, grant.cores, 0};
        if (pool) join_pool(r, *pool, since);
        if (slurm) {
          r.extra.emplace_back(kStepField, "1");
          r.extra.emplace_back(kStepCpusField, std::to_string(step_asks));
        }
        // What the next launches weigh this one by (rule 5 of thread_grant).
        if (!rec.output.empty()) r.extra.emplace_back("unit", history_key(rec.output));
        set_work(r, unit.work());
        // Expected end: the learned CPU time spread over its cores (optimistic, so later units
        // are not denied threads by a pessimistic guess).
        if (unit.serial_cpu_ms) r.until_ms = now + *unit.serial_cpu_ms / std::max(1, grant.cores);
        return r;
      },
      plain, decided, kPoolPoll, std::chrono::minutes(30), [&pause] { return pause; });
  l.reserved = g.governed;
  // The ledger failed while this compile waited: its waiting entry goes now if it can (else with
  // this process).
  if (pool && !g.governed) l.ledger->release(pid);
  rec.waited_ms = g.waited.count();
  if (!g.warning.empty()) {
    // Ninja passes this on to the build log, beside the compile it concerns.
    rec.warning = g.warning;
    s.err << "kiln exec: warning: " << g.warning << "\n";
  }
  if (l.reserved && decided.kib == grant.kib) {
    flags = grant_flags(grant);
    record_grant(rec, grant, priority, has_kernels);
    if (slurm) rec.step_cpus = step_asks;
    // Its share weighs what the compile may run: its granted cores, and with one target nvcc's
    // host side beside the device side (--threads 2 or more); a unit without kernels, one.
    if (governed && kiln.cpu_share.value_or(false)) {
      const auto own = unit.project.threads;
      const bool host_lane = rec.archs == 1 && (grant.threads >= 2 || (own && *own != 1));
      l.share_threads = !has_kernels              ? 1
                        : grant.weigh_threads > 0 ? grant.weigh_threads
                                                  : grant.cores + (host_lane ? 1 : 0);
      l.share_nice = share_nice(l.share_threads, priority.nice, cores, policy.priority);
    }
  }
  return flags;
}

// nvcc --time into a file of kiln's, unless the project (or NVCC_APPEND_FLAGS) times it already:
// a second --time would take its file away, and nvcc warns about the redefinition.
std::string time_flag(const std::vector<std::string>& argv, io::Seams& s, Launch& l, bool nvcc,
                      const std::string& user_append) {
  auto names_time = [](const std::string& a) {
    return a == "--time" || a == "-time" || a.rfind("--time=", 0) == 0 || a.rfind("-time=", 0) == 0;
  };
  bool own_time = std::any_of(argv.begin(), argv.end(), names_time);
  std::istringstream words(user_append);
  for (std::string w; words >> w;) own_time = own_time || names_time(w);
  const auto dir = core::LauncherEnv::from_env(s.env).nvcc_time;
  if (!nvcc || own_time || dir.empty() || l.rec.output.empty()) return "";
  s.fs.make_dirs(dir);
  l.time_file = fmt::format("{}/{}-{}.csv", dir, history_key(l.rec.output), ::getpid());
  std::error_code ec;
  const auto cwd = std::filesystem::current_path(ec);
  // A build folder with a blank in its path: the phases are skipped rather than the compile broken.
  if (auto arg = append_flags_path(l.time_file, ec ? std::string() : cwd.string())) return "--time=" + *arg;
  l.time_file.clear();
  return "";
}

// After the compile: its phases, what the governor learns from it, and its line in the exec log.
void record(const io::ProcessResult& result, io::Seams& s, Launch& l) {
  ExecRecord& rec = l.rec;
  if (!l.time_file.empty()) {
    if (auto csv = s.fs.read(l.time_file)) rec.phases = parse_nvcc_phases(*csv);
    ::unlink(l.time_file.c_str());
  }
  const auto kiln = core::LauncherEnv::from_env(s.env);
  const std::string& history = kiln.mem_history;
  // A ccache hit peaks at a few MiB and takes a fraction of a second: it must not teach the
  // governor that this unit is cheap or short, so only real compiles are recorded.
  constexpr long kSmallestRealCompileKib = 32 * 1024;
  if (result.ok() && !history.empty() && !rec.output.empty() && result.peak_rss_kib >= kSmallestRealCompileKib) {
    UnitHistory h = l.history_before.value_or(UnitHistory{});
    h.peak_kib = std::max<std::uint64_t>(h.peak_kib, static_cast<std::uint64_t>(result.peak_rss_kib));
    h.cpu_ms = static_cast<long>(result.cpu.count());
    h.wall_ms = static_cast<long>(result.wall.count());
    h.cores = rec.cores;
    s.fs.make_dirs(history);
    s.fs.write(history + "/" + history_key(rec.output), format_history(h));
    if (!l.unit_id.empty() && s.fs.make_dirs(l.units_dir))
      s.fs.write(l.units_dir + "/" + history_key(l.unit_id), format_history(h));
  }
  // The plan's units still to come are those not done (ComingUnits).
  if (!kiln.unit_plan.empty() && !rec.output.empty()) append_line(kiln.unit_plan, plan_done_line(rec.output));
  // Version probes and the like (no output, no source) are not units of the build.
  if (!kiln.exec_log.empty() && result.started && !(rec.output.empty() && rec.source.empty()))
    append_line(kiln.exec_log, record_json_line(rec));
}

}  // namespace

// What this unit cost last time: in this build folder, else (KILN_UNIT_HISTORY) in any checkout of
// the project; and so what the governor expects of it.
static void learn_history(const std::vector<std::string>& argv, const io::Seams& s, Launch& l) {
  ExecRecord& rec = l.rec;
  const auto places = HistoryPlaces::from_env(s.env);
  auto learned = learned_cost(s.fs, places, rec.output, rec.source);
  l.history_before = learned.history;
  l.units_dir = places.units_dir;
  l.unit_id = learned.unit_id;
  rec.expected_kib = l.history_before && l.history_before->peak_kib > 0
                         ? static_cast<std::uint64_t>(l.history_before->peak_kib * 1.1)
                         : expected_peak_kib(s.fs, places.build_history, argv);
}

// kiln build's progress line names the compiles running now (launch/running_units); "" when there
// is nothing to show or the file could not be written.
static std::string show_running(io::Seams& s, const ExecRecord& rec, bool queued) {
  try {
    const auto dir = core::LauncherEnv::from_env(s.env).running;
    if (dir.empty() || rec.output.empty()) return "";
    const long pid = static_cast<long>(::getpid());
    const auto started = io::system_processes().start_time(pid);
    return mark_running(s.fs, dir,
                        {.pid = pid,
                         .proc_start = started.value_or(0),
                         .start_ms = rec.start_ms,
                         .output = rec.output,
                         .queued = queued,
                         .node = {}});
  } catch (...) {
    return "";
  }
}

int exec_compiler(const std::vector<std::string>& command, io::Seams& s) {
  // On a Slurm node, inside a step this launcher started: run the compiler and report (slurm_step).
  if (auto report = core::LauncherEnv::from_env(s.env).step_report; !report.empty())
    return run_step_on_node(command, report, s);
  std::vector<std::string> argv = command;
  Launch l;
  ExecRecord& rec = l.rec;
  std::optional<std::map<std::string, std::string>> child_env;  // set only when kiln adds nvcc flags
  // Everything kiln adds is best effort: an exception here falls through to running `command`.
  try {
    argv = rewrite_command(argv, s, rec);
    const bool nvcc = is_nvcc(argv);
    rec.output = output_of(argv);
    rec.source = source_of(argv);
    rec.archs = device_targets_of(argv);
    learn_history(argv, s, l);
    const std::string user_append = s.env.get("NVCC_APPEND_FLAGS").value_or("");
    std::string flags;
    if (const auto kiln = core::LauncherEnv::from_env(s.env); !kiln.ledger.empty() && kiln.mem_budget_kib)
      flags = admit(argv, s, l, nvcc, user_append, kiln.ledger, *kiln.mem_budget_kib,
                    compiles_a_source(argv) ? slurm_config(s.env) : std::nullopt);
    if (auto t = time_flag(argv, s, l, nvcc, user_append); !t.empty()) flags += (flags.empty() ? "" : " ") + t;
    if (!flags.empty()) {
      child_env = s.env.all();
      (*child_env)["NVCC_APPEND_FLAGS"] = user_append.empty() ? flags : user_append + " " + flags;
    }
  } catch (...) {
    argv = command;
    child_env.reset();
    l.time_file.clear();
  }

  rec.start_ms = epoch_ms();
  // A link (or any command that compiles no source) runs here: its peak is small and its inputs
  // are here already; a job step would hold a node's cores and a compile's memory for it.
  const auto slurm = compiles_a_source(argv) ? slurm_config(s.env) : std::nullopt;
  // A step waits in srun until Slurm has its CPUs and memory: queued until the node says it began.
  const std::string running = show_running(s, rec, slurm.has_value());
  if (slurm && !running.empty()) {
    if (!child_env) child_env = s.env.all();
    (*child_env)[std::string(core::launcher_vars::kStepRunning)] = running;
  }
  io::ProcessSpec spec{.argv = argv, .env = child_env};
  spec.nice = rec.nice;
  spec.inherit_stdio = true;
  spec.die_with_caller = true;  // `kill -9` of this launcher must not leave its compiler running
  // The compile's one CPU weight, shared among its running threads by a watcher beside it.
  io::SystemTaskTable tasks;
  std::optional<ShareWatch> watch;
  errno = 0;
  if (l.share_nice && !slurm)
    if (const int own_nice = ::getpriority(PRIO_PROCESS, 0); errno == 0) {
      watch.emplace(tasks, own_nice, *l.share_nice, PriorityPolicy::from_data());
      spec.nice = std::max(0, *l.share_nice);  // one thread's nice until the first look
      spec.on_start = [&watch](int pid) {
        try {
          watch->start(pid);
        } catch (...) {}  // no thread to be had: the compile runs with one thread's nice, as started
      };
    }
  auto result = slurm ? run_slurm_unit(*slurm, spec, rec, s) : s.proc.run(spec);
  if (!result.started && argv != command && !slurm) {
    // kiln's rewrite is at fault only if the original would have started: try it as given.
    argv = command;
    spec.argv = argv;
    result = s.proc.run(spec);
  }
  if (watch) watch->stop();
  try {
    if (!running.empty()) s.fs.remove(running);
    if (l.reserved) l.ledger->release(static_cast<long>(::getpid()));
    rec.wall_ms = result.wall.count();
    rec.cpu_ms = result.cpu.count();
    rec.peak_rss_kib = result.peak_rss_kib;
    rec.exit = result.term_signal ? 128 + result.term_signal : result.exit_code;
    if (watch) {
      rec.share_nice = *l.share_nice;
      const int most = watch->most_running();
      rec.grant +=
          fmt::format("{}its CPU share: {} {} weight at nice {}, shared by its running threads{}",
                      rec.grant.empty() ? "" : "; ", l.share_threads, l.share_threads == 1 ? "thread's" : "threads'",
                      *l.share_nice, most > 0 ? fmt::format(" (up to {} at once)", most) : "");
    }
    record(result, s, l);
  } catch (...) {}
  if (!result.started) {
    s.err << "kiln exec: cannot run " << command[0] << ": " << result.spawn_error << "\n";
    return 127;
  }
  return result.term_signal ? 128 + result.term_signal : result.exit_code;
}

}  // namespace kiln::launch
