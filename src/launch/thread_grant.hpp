#pragma once
// Extra nvcc threads for a compile that would otherwise hold the build back: at launch, a long
// CUDA unit gets `--split-compile=N` (device optimisation in parallel) and `--threads=N`
// (architectures in parallel; with one, the host side beside the device side) from the cores and
// memory that the compiles already running leave free. Only how nvcc schedules its work changes: the same targets
// from the same code (kiln checked the device code of split and unsplit objects: same kernels,
// registers and SASS size). The rule is a pure function of what is running, so it is unit-tested
// with a fake clock and ledger; `kiln exec` applies it under the governor's lock, and then the
// compile's CPU priority among the others (launch/unit_priority).
//
// The rule, in order:
//   1. Host compiles (no device targets) get nothing: gcc/clang have no such lever.
//   2. The project's own --split-compile (or -split-compile) is its decision: kept, and counted.
//      Its --threads/-t is kept too (effective threads: at most one per remaining target after
//      pruning); kiln may still add --split-compile beside it, since that is a different lever.
//   3. A unit known from an earlier build to be short (CPU time < min_serial) gets nothing: the
//      split's fixed cost would not pay off. Unknown units (first build) are treated as long:
//      a torch extension's nvcc unit is rarely short, and memory is still bounded.
//   4. A unit that a running compile will outlast anyway (its serial time is below the longest
//      expected remaining time of the others) gets nothing: it is not on the critical path.
//   5. Cores, shared by weight (launch/unit_weight: learned CPU time, else an estimate from the
//      unit's source and headers, else equal) among the units running now, this one, and those
//      the build's plan says start soon (launch/unit_plan: Ninja's -j per group). A unit whose
//      work is at least the average per core, T = total work / cores, is on the critical path
//      and gets share_of_cores x (cores x its work / the work of all such units) when that is at
//      least 1.5 cores' worth; the others get one thread, unless one thread on a shared core (the
//      critical threads per core while all run) would end them after the makespan (the longer of T
//      and the longest unit on its threads): then the threads that would not (Amdahl's law with
//      data/build_jobs.toml [priority]'s serial fraction), at most what 1.5 cores' worth gets, and
//      only with no more units than cores and where all such extras fit under the cap below.
//      Threads beyond the cores are time-shared, so while all run each progresses in proportion
//      to its work, and when the short ones end the long ones still hold the cores
//      (share_of_cores 2: at most about twice the cores in all, not the fixed cost of a split
//      per thread everywhere). Each other unit expected to run at least half as long keeps a core
//      (the shorter ones are niced and end early; at least 3/4 of the cores by this cap: more
//      units than cores time-share anyway), at most max_threads, and the threads of all running
//      compiles stay within oversubscribe x cores.
//      A unit alone gets every core; one arriving late still gets its share, since a share does
//      not depend on what the earlier ones took; a full build grants nothing.
//   6. No oversubscription while units wait (issue 35: 130 threads on 32 cores, the first
//      flash-attention units granted 15 while 31 others ran): while the build has units not yet
//      started, the compile's threads stay within the cores the running compiles' threads and one
//      core per waiting unit leave (a unit its Ninja's -j lets start now is not waiting). The
//      machine's runnable threads (/proc/loadavg) are not asked: they count the whole host in a
//      container limited to a few of its cores, and change between two reads.
//   6b. The last wave: once every unit left can start at the next free slot (fewer wait than there
//      are cores; the build's plan says how many), the cores that ending compiles leave will be idle
//      while the units starting now still run. A unit that rules 5 and 6 leave on its own threads
//      gets tail_threads instead, at the CPU weight of its own threads: its nice is raised by the
//      ratio (Grant::nice_raise), so beside busy cores its threads take no more than one would, and
//      as the others end they run on the idle ones. flash-attention 2 on 32 cores (the GPU host's
//      record, docs/benchmarks.md): every unit ran on one thread, the backward units started last,
//      and the longest ended 217 s after the last unit started, 120 s of them on fewer than 16 of the
//      32 cores. Not without a plan (the last wave is unknown), nor for a unit known to be short or
//      to end before a running one (rules 3 and 4). The first unit too, when others start beside it:
//      flash-attention's 16 head-dim-64 units on 16 cores ended at 372 s, on the one unit that
//      started first and was left one thread (the others, with 4, ended by 310 s).
//      Only while the compiles running, this one and those starting now fit the cores: beyond
//      them every thread competes, and the raised nice starves the unit's serial phases (nvcc's
//      front end runs on one thread at +6). apex on 16 cores (eleven extensions' Ninjas, 34
//      compiles at once, none "waiting" for a slot): the units granted at the start took 35 s of
//      CPU in 100 s, their one-thread neighbours 45 s in 50 s, and the build 1.39x its bound.
//      data/build_jobs.toml tail_threads, docs/benchmarks.md "Session 12" and "Session 13".
//   7. Memory: each extra thread reserves thread_memory_fraction x the unit's expected peak; the
//      extra may use at most memory_share of what the budget has left beside the running
//      reservations and the unit's own base, so the total always fits the budget.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "launch/governor.hpp"
#include "launch/unit_priority.hpp"
#include "launch/unit_weight.hpp"

namespace kiln::launch {

// What the compile's own arguments (and NVCC_APPEND_FLAGS) already ask for.
struct ProjectThreads {
  std::optional<int> split;    // --split-compile N (0: nvcc picks, i.e. all cores)
  std::optional<int> threads;  // --threads N (0: one per architecture)
};
ProjectThreads project_threads(const std::vector<std::string>& args, const std::string& nvcc_append_flags = "");

struct GrantPolicy {
  long min_serial_ms = 20'000;
  int max_threads = 32;
  double oversubscribe = 4.0;
  double thread_memory_fraction = 0.25;
  double memory_share = 0.5;
  double share_of_cores = 2.0;
  int tail_threads = 4;            // rule 6b
  PriorityPolicy priority;         // its serial fraction: how far threads shorten a unit (rule 5)
  static GrantPolicy from_data();  // data/build_jobs.toml [split]
};

struct UnitShape {
  bool nvcc = false;
  int device_targets = 0;
  ProjectThreads project;
  std::uint64_t base_kib = 0;         // expected peak with one thread
  std::optional<long> serial_cpu_ms;  // learned CPU time of a real compile of this unit
  double estimate = 0;                // estimate_work's figure; 0: unknown
  UnitWork work() const { return {estimate, serial_cpu_ms, !nvcc || device_targets <= 0}; }
};

struct Grant {
  int split = 0;    // --split-compile=N kiln adds; 0: none
  int threads = 0;  // --threads=N kiln adds; 0: none
  int cores = 1;    // cores the compile may keep busy (its ledger thread count)
  // Rule 6b: the threads whose CPU weight the compile has (its own), and the nice that makes its
  // `cores` threads weigh that much; 0 for an ordinary grant.
  int weigh_threads = 0;
  int nice_raise = 0;
  std::uint64_t kib = 0;  // what to reserve: the base plus the extra threads' memory
  std::string why;
  // The share by weight, when rule 5 was reached: the basis of the weights, this unit's part of
  // the work of the units sharing the cores, and how many they were (this one included).
  std::string basis;
  double share = 0;
  int units = 0;
  bool granted() const { return split > 1 || threads > 1; }
};

// What rule 6 knows of the machine beyond the ledger.
struct Idle {
  int waiting = 0;       // the build's units not started yet (launch/unit_plan), this one aside
  bool planned = false;  // the build's plan lists this unit, so `waiting` is known (rule 6b)
};

// `running`: the other live reservations (not this compile); `now_ms`: the clock their until_ms use;
// `coming`: the units the plan says start soon (not running yet).
Grant decide_grant(const UnitShape& unit, const std::vector<Reservation>& running, int cores, std::uint64_t budget_kib,
                   long long now_ms, const GrantPolicy& policy, const std::vector<UnitWork>& coming = {},
                   const Idle& idle = {});

// The units that share the cores in rule 5, in this order: those running (their reservations'
// work), this one, those coming.
std::vector<UnitWork> sharing_units(const std::vector<Reservation>& running, const UnitWork& me,
                                    const std::vector<UnitWork>& coming);

// Rule 5's threads for each of `members` (the units sharing the cores), before the caps of what
// is running and of memory: what a unit that has not launched yet can expect (launch/unit_priority).
std::vector<int> share_threads(const std::vector<UnitWork>& members, int cores, const GrantPolicy& policy);

// A running compile's work, as its reservation carries it (fields est= and cpu=; unknown without).
UnitWork work_of(const Reservation& r);
void set_work(Reservation& r, const UnitWork& w);

// The flags to append for a grant ("--split-compile=4 --threads=2"), empty when none.
std::string grant_flags(const Grant& g);

}  // namespace kiln::launch
