#include "launch/thread_grant.hpp"

#include <climits>

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <numeric>
#include <sstream>

#include "core/duration_text.hpp"
#include "core/text.hpp"
#include "core/data_toml.hpp"

namespace kiln::launch {
namespace {

// "--split-compile=4", "-split-compile 4", "--threads 2", "-t 2", "-t=2".
void scan(const std::vector<std::string>& args, ProjectThreads& out) {
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    for (auto [names, slot] : {std::pair{std::vector<std::string>{"--split-compile", "-split-compile"}, &out.split},
                               std::pair{std::vector<std::string>{"--threads", "-t"}, &out.threads}}) {
      for (const auto& name : names) {
        if (a == name && i + 1 < args.size()) {
          if (auto n = core::parse_count(args[i + 1])) *slot = n;
        } else if (a.size() > name.size() + 1 && a.compare(0, name.size() + 1, name + "=") == 0) {
          if (auto n = core::parse_count(std::string_view(a).substr(name.size() + 1))) *slot = n;
        }
      }
    }
  }
}

// The fewest threads with which `work` ends within `span` (Amdahl's law): 1 when one thread does,
// the cores when none would (its serial part alone is longer: as many as the caller allows).
int threads_to_finish_within(double work, double span, int cores, const PriorityPolicy& p) {
  if (work <= span) return 1;
  if (span <= 0 || work * p.serial_fraction >= span) return cores;
  for (int t = 2; t <= cores; ++t)
    if (unit_duration(work, t, p) <= span) return t;
  return cores;
}

struct Share {
  int threads = 1;
  double part = 1;  // this unit's part of the work
  int units = 1;
  int busy_peers = 0;  // the others expected to run at least half as long as this one
  std::string basis;
};

// The weights of the units sharing the cores, with their total, the critical work (the units of
// at least the average work per core), and what the critical units' threads make of the machine.
struct Weighed {
  Weights weights;
  double total = 0, long_work = 0;
  double contention = 1;     // the critical threads per core while they all run (at least 1)
  double makespan = 0;       // the longer of the average work per core and the longest unit on its threads
  std::vector<int> threads;  // rule 5's threads for each unit: by its part of the critical work, plus any extras
};

// The threads a unit gets by its part of the critical work: its part of the cores, twice that
// (share_of_cores) when it is more than one core's worth, so that it keeps the cores the short units
// leave. Units of equal work on a full machine get one thread each: a split would add its cost and
// gain nothing.
int critical_threads(double w, const Weighed& weighed, int cores, const GrantPolicy& policy) {
  const double cores_worth = weighed.long_work > 0 ? cores * w / weighed.long_work : 0;
  if (w >= weighed.total / cores && cores_worth >= 1.5)
    return std::clamp(static_cast<int>(std::lround(policy.share_of_cores * cores_worth)), 1, cores);
  return 1;
}

// Rule 5's extra threads for a unit left one thread by its part of the critical work: the threads
// that end it in time if it would end after the others on a shared core, up to what 1.5 cores'
// worth gets. While the units all run, each thread gets 1 / contention of a core: mamba's forward
// units (73 s of CPU each, one thread each, just under the 72 s average per core, so not
// "critical") ended at 84 s, the first build's tail on the GPU host, beside 34 threads on 16 cores.
int one_thread_extra(double w, const Weighed& weighed, int cores, const GrantPolicy& policy) {
  if (w * weighed.contention <= weighed.makespan) return 0;
  const int t = std::min(threads_to_finish_within(w, weighed.makespan / weighed.contention, cores, policy.priority),
                         static_cast<int>(std::lround(policy.share_of_cores * 1.5)));
  return std::max(0, t - 1);
}

Weighed weigh(const std::vector<UnitWork>& members, int cores, const GrantPolicy& policy) {
  Weighed out;
  out.weights = unit_weights(members);
  for (double w : out.weights.w) out.total += w;
  for (double w : out.weights.w)
    if (w >= out.total / cores) out.long_work += w;
  out.makespan = out.total / cores;
  // Each unit's threads by its part of the critical work (one for a host compile or a short unit).
  double total_threads = 0;
  for (size_t i = 0; i < members.size(); ++i) {
    const int t = members[i].host ? 1 : critical_threads(out.weights.w[i], out, cores, policy);
    out.threads.push_back(t);
    total_threads += t;
    out.makespan = std::max(out.makespan, unit_duration(out.weights.w[i], t, policy.priority));
  }
  out.contention = std::max(1.0, total_threads / cores);
  // The extras only with fewer units than cores (more keep every core busy with a unit of their
  // own: a short unit's split would only take time from the long ones) and where they all fit
  // beside the critical units' threads under the oversubscription cap. On apex (37 units) they
  // took the cap's threads before a long softmax unit launched, which then got 3 of its 12 (GPU
  // host: 1.32x its bound, against 1.27-1.28x without them).
  std::vector<int> extra(members.size(), 0);
  for (size_t i = 0; i < members.size(); ++i)
    if (!members[i].host && out.threads[i] == 1) extra[i] = one_thread_extra(out.weights.w[i], out, cores, policy);
  const int extras = std::accumulate(extra.begin(), extra.end(), 0);
  if (static_cast<int>(members.size()) <= cores && total_threads + extras <= policy.oversubscribe * cores)
    for (size_t i = 0; i < members.size(); ++i) out.threads[i] = std::clamp(out.threads[i] + extra[i], 1, cores);
  return out;
}

// Rule 5's share: the units running, this one and those coming, weighted on one scale.
Share share_by_weight(const UnitShape& unit, const std::vector<Reservation>& running,
                      const std::vector<UnitWork>& coming, int cores, const GrantPolicy& policy) {
  const auto members = sharing_units(running, unit.work(), coming);
  const size_t me = running.size();
  const auto w = weigh(members, cores, policy);
  Share s;
  s.units = static_cast<int>(members.size());
  s.basis = w.weights.basis;
  s.part = w.total > 0 ? w.weights.w[me] / w.total : 1;
  s.threads = w.threads[me];
  // A peer expected to end in less than half this unit's time runs at a higher nice value
  // (launch/unit_priority) and gives its core back early: it needs no core kept for it.
  const double mine = unit_duration(w.weights.w[me], s.threads, policy.priority);
  for (size_t i = 0; i < members.size(); ++i) {
    if (i == me) continue;
    const int t = i < me ? std::max(1, running[i].threads) : w.threads[i];
    if (unit_duration(w.weights.w[i], t, policy.priority) >= 0.5 * mine) ++s.busy_peers;
  }
  return s;
}

// Architectures in parallel first (independent pipelines, near-perfect speedup), then each
// architecture's optimisation split over the remaining threads. With one architecture,
// --threads=2 still gives the host side (its preprocessing and cudafe++, 4-6 s of mamba's units
// on the GPU host) a lane of its own beside the device front end and cicc, off the unit's serial
// chain: the same objects (tests/e2e/nvcc_threads_same_code.sh asks nvcc), and not counted as a
// core since it ends while cicc runs. `kiln_threads`: the project left --threads to kiln.
void lay_out_threads(Grant& g, int n, int own_threads, int targets, bool kiln_threads, std::uint64_t base_kib,
                     std::uint64_t per_thread_kib) {
  int threads = own_threads;
  if (kiln_threads && targets > 1) {
    threads = std::min(targets, n);
    if (threads > 1) g.threads = threads;
  } else if (kiln_threads && targets == 1) {
    g.threads = 2;
  }
  const int split = n / threads;
  if (split > 1) g.split = split;
  g.cores = threads * std::max(1, split);
  // The host lane's memory as one more thread's: cudafe++ on torch's headers beside cicc.
  const int lanes = g.cores - own_threads + (g.threads > threads ? 1 : 0);
  g.kib = base_kib + per_thread_kib * static_cast<std::uint64_t>(lanes);
}

}  // namespace

ProjectThreads project_threads(const std::vector<std::string>& args, const std::string& nvcc_append_flags) {
  ProjectThreads out;
  scan(args, out);
  std::vector<std::string> env_args;
  std::istringstream in(nvcc_append_flags);
  for (std::string w; in >> w;) env_args.push_back(w);
  scan(env_args, out);  // nvcc appends these last, so they win
  return out;
}

GrantPolicy GrantPolicy::from_data() {
  GrantPolicy p;
  try {
    static const toml::table t = data::load_toml("build_jobs.toml");
    const auto s = t["split"];
    p.min_serial_ms = static_cast<long>(s["min_serial_seconds"].value_or(20.0) * 1000);
    p.max_threads = static_cast<int>(s["max_threads"].value_or(int64_t{32}));
    p.oversubscribe = s["oversubscribe"].value_or(4.0);
    p.thread_memory_fraction = s["thread_memory_fraction"].value_or(0.25);
    p.memory_share = s["memory_share"].value_or(0.5);
    p.share_of_cores = s["share_of_cores"].value_or(2.0);
    p.tail_threads = static_cast<int>(s["tail_threads"].value_or(int64_t{4}));
  } catch (...) {}
  p.priority = PriorityPolicy::from_data();
  return p;
}

Grant decide_grant(const UnitShape& unit, const std::vector<Reservation>& running, int cores, std::uint64_t budget_kib,
                   long long now_ms, const GrantPolicy& policy, const std::vector<UnitWork>& coming, const Idle& idle) {
  Grant g;
  g.kib = unit.base_kib;
  cores = std::max(1, cores);
  if (!unit.nvcc || unit.device_targets <= 0) {
    g.why = "host compile";
    return g;
  }
  const int targets = std::max(1, unit.device_targets);
  const int own_threads =
      unit.project.threads ? (*unit.project.threads == 0 ? targets : std::clamp(*unit.project.threads, 1, targets)) : 1;
  const auto per_thread_kib =
      static_cast<std::uint64_t>(static_cast<double>(unit.base_kib) * policy.thread_memory_fraction);
  g.cores = own_threads;
  if (unit.project.split) {
    const int split = *unit.project.split == 0 ? cores : std::max(1, *unit.project.split);
    g.cores = own_threads * split;
    g.kib = unit.base_kib + per_thread_kib * static_cast<std::uint64_t>(g.cores - own_threads);
    g.why = fmt::format("the project passes --split-compile={}: kept", *unit.project.split);
    return g;
  }
  if (unit.serial_cpu_ms && *unit.serial_cpu_ms < policy.min_serial_ms) {
    g.why = fmt::format("short: {} of CPU in its last compile", core::duration_text(*unit.serial_cpu_ms));
    return g;
  }
  long long longest_remaining = 0;
  int others_threads = 0;
  std::uint64_t used = 0;
  for (const auto& r : running) {
    if (r.until_ms > now_ms) longest_remaining = std::max(longest_remaining, r.until_ms - now_ms);
    others_threads += std::max(1, r.threads);
    used += r.kib;
  }
  if (unit.serial_cpu_ms && *unit.serial_cpu_ms / own_threads <= longest_remaining) {
    g.why = fmt::format("not on the critical path: a running compile needs {} more, this one {}",
                        core::duration_text(longest_remaining), core::duration_text(*unit.serial_cpu_ms / own_threads));
    return g;
  }
  const int others = static_cast<int>(running.size());
  const auto share = share_by_weight(unit, running, coming, cores, policy);
  g.basis = share.basis;
  g.share = share.part;
  g.units = share.units;
  const int peers = share.units - 1;
  const int by_oversubscription = static_cast<int>(std::floor(policy.oversubscribe * cores)) - others_threads;
  // A core for each other unit that runs about as long (the shorter ones are niced and end
  // early: causal-conv1d's long unit, kept to 13 of 16 threads for three units of 9-49 s, took
  // 223 s in the build against 211 s alone), but never less than three quarters of the cores from
  // that: with more units than cores (eight extensions' Ninjas at once) they time-share the CPU all
  // the same (each in proportion to its threads), and the long ones must still get their share.
  const int by_others = cores - std::min(share.busy_peers, cores / 4);
  int n = std::min({share.threads, by_others, policy.max_threads, by_oversubscription});
  // Rule 6: the cores nobody else will use.
  int idle_cores = cores;
  if (idle.waiting > 0) idle_cores = cores - others_threads - std::min(idle.waiting, cores);
  const bool capped = n > own_threads && idle_cores < n;
  if (capped) n = std::max(own_threads, idle_cores);
  // Rule 6b: in the last wave, threads at the weight of its own for the cores ending compiles leave;
  // only while the compiles running, this one and those starting now fit the cores (see the header).
  const bool fits_cores = others + 1 + static_cast<int>(coming.size()) <= cores;
  const bool tail = n <= own_threads && idle.planned && idle.waiting < cores && fits_cores && share.units > 1 &&
                    policy.tail_threads > own_threads;
  std::string tail_why;
  if (tail) {
    tail_why = fmt::format("; the last wave ({} unit{} waiting on {} cores)", idle.waiting,
                           idle.waiting == 1 ? "" : "s", cores);
    n = std::min(policy.tail_threads, policy.max_threads);
  }
  if (n <= own_threads && capped) {
    g.why = fmt::format(
        "no idle cores: {} other compile{} ({} threads){} on {} cores", others, others == 1 ? "" : "s", others_threads,
        idle.waiting > 0 ? fmt::format(", {} unit{} waiting", idle.waiting, idle.waiting == 1 ? "" : "s") : "", cores);
    return g;
  }
  if (n <= own_threads) {
    g.why = share.threads <= own_threads
                ? fmt::format("its share: {:.0f}% of the work of {} units ({}) on {} cores", 100 * share.part,
                              share.units, share.basis, cores)
                : fmt::format("no free cores: {} other compile{} ({} threads){} on {} cores", others,
                              others == 1 ? "" : "s", others_threads,
                              peers > others ? fmt::format(" and {} starting", peers - others) : "", cores);
    return g;
  }
  const std::uint64_t left = budget_kib > used + unit.base_kib ? budget_kib - used - unit.base_kib : 0;
  const auto extra_allowed = static_cast<std::uint64_t>(static_cast<double>(left) * policy.memory_share);
  const int by_cores = n;
  // One architecture: the host side's lane (below) is one more thread's memory.
  const bool host_lane = !unit.project.threads && targets == 1;
  if (per_thread_kib > 0) {
    std::uint64_t by_memory = extra_allowed / per_thread_kib;
    by_memory = host_lane && by_memory > 0 ? by_memory - 1 : by_memory;
    n = static_cast<int>(std::min<std::uint64_t>(static_cast<std::uint64_t>(n), own_threads + by_memory));
  }
  if (n <= own_threads) {
    g.why = fmt::format("memory: {} MiB left in the budget beside the running compiles", left / 1024);
    return g;
  }
  lay_out_threads(g, n, own_threads, targets, !unit.project.threads, unit.base_kib, per_thread_kib);
  if (tail) {
    g.weigh_threads = own_threads;
    g.nice_raise = nice_levels(static_cast<double>(g.cores) / own_threads, policy.priority);
    g.why = fmt::format(
        "its share: {:.0f}% of the work of {} units ({}) on {} cores{}: {} threads at the CPU weight "
        "of {} (nice +{}), for the cores the ending compiles leave",
        100 * share.part, share.units, share.basis, cores, tail_why, g.cores, own_threads, g.nice_raise);
    if (n < policy.tail_threads) g.why += fmt::format("; memory allows {} threads of {}", n, policy.tail_threads);
    return g;
  }
  g.why = share.units == 1 ? fmt::format("alone: {} cores", cores)
                           : fmt::format("its share: {:.0f}% of the work of {} units ({}) on {} cores",
                                         100 * share.part, share.units, share.basis, cores);
  if (by_cores < share.threads)
    g.why += fmt::format("; {} of its {} (a core for each other unit about as long, at most {:g} x the cores in all)",
                         by_cores, share.threads, policy.oversubscribe);
  if (capped) g.why += fmt::format("; {} idle core{}", idle_cores, idle_cores == 1 ? "" : "s");
  if (n < by_cores) g.why += fmt::format("; memory allows {} threads of {}", n, by_cores);
  return g;
}

std::vector<UnitWork> sharing_units(const std::vector<Reservation>& running, const UnitWork& me,
                                    const std::vector<UnitWork>& coming) {
  std::vector<UnitWork> members;
  for (const auto& r : running) members.push_back(work_of(r));
  members.push_back(me);
  members.insert(members.end(), coming.begin(), coming.end());
  return members;
}

std::vector<int> share_threads(const std::vector<UnitWork>& members, int cores, const GrantPolicy& policy) {
  return weigh(members, std::max(1, cores), policy).threads;
}

UnitWork work_of(const Reservation& r) {
  UnitWork w;
  try {
    if (auto e = r.field("est"); !e.empty()) w.estimate = std::max(0.0, std::stod(e));
    if (auto c = r.field("cpu"); !c.empty() && std::stol(c) > 0) w.cpu_ms = std::stol(c);
  } catch (...) {}  // another version's field: unknown
  w.host = r.field("host") == "1";
  return w;
}

// Written as it will be read back: a host compile stays one (else the others' shares count it as a
// device unit with split threads of its own), and the estimate keeps its digits (a ledger's 3.3 for
// 3.25 moved a short unit's planned threads in e2e.grant_share).
void set_work(Reservation& r, const UnitWork& w) {
  std::erase_if(r.extra, [](const auto& kv) { return kv.first == "est" || kv.first == "cpu" || kv.first == "host"; });
  if (w.estimate > 0) r.extra.emplace_back("est", fmt::format("{:g}", w.estimate));
  if (w.cpu_ms) r.extra.emplace_back("cpu", std::to_string(*w.cpu_ms));
  if (w.host) r.extra.emplace_back("host", "1");
}

std::string grant_flags(const Grant& g) {
  std::string s;
  if (g.split > 1) s += fmt::format("--split-compile={}", g.split);
  if (g.threads > 1) s += fmt::format("{}--threads={}", s.empty() ? "" : " ", g.threads);
  return s;
}

}  // namespace kiln::launch
