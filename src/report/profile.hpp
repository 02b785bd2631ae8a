#pragma once
// A finished build's profile: where the time went (critical path, parallelism, slowest units and
// targets), how far the schedule is from the bound max(total CPU / cores, critical path), memory
// and cache figures when the launcher and ccache recorded them.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "drive/ninja_log.hpp"
#include "launch/exec_record.hpp"
#include "report/ninja_graph.hpp"
#include "report/nvcc_time.hpp"
#include "report/unit_kind.hpp"
#include "launch/ccache_stats.hpp"

namespace kiln::report {

// The exec log is the launcher's record type, read where it is written (launch/exec_record).
using launch::ExecLog;
using launch::ExecRecord;
using launch::parse_exec_log;
// Ninja's log is read below, where the build's ETA learns from it too (drive/ninja_log).
using drive::Job;
using drive::NinjaLog;
using drive::parse_ninja_log;

struct Unit {
  std::string name;  // first output, as Ninja names it
  std::vector<std::string> outputs;
  UnitKind kind = UnitKind::other;
  std::string target;  // the CMake target (CMakeFiles/<t>.dir) or the library / executable name
  std::string source;  // when the exec log or the graph names it
  long start_ms = 0, end_ms = 0;
  long duration_ms() const { return end_ms - start_ms; }
  // From the exec log when it has this unit; -1 when unknown.
  long cpu_ms = -1, peak_rss_kib = -1, waited_ms = 0;
  // The compile's own run time as the launcher measured it (under --slurm, the node's, of the
  // attempt that finished; lost attempts and time queued excluded); -1 when unknown.
  long run_ms = -1;
  int archs = 0;
  int lane = 0;
  bool critical = false;
  std::map<int, double> arch_ms;  // measured by nvcc --time
  double host_ms = 0;
  double per_arch_estimate_ms = 0;        // without nvcc --time: (duration - waited) / archs
  launch::NvccPhases phases;              // per unit, recorded by kiln exec (nvcc --time)
  int split = 0, threads = 0, cores = 1;  // the launcher's thread grant
  std::string grant;                      // why (launch/thread_grant)
  std::string grant_basis;                // the share by weight behind it, when reached
  double grant_share = 0;
  int grant_units = 0;
  int nice = 0;      // how much kiln raised its nice value (launch/unit_priority)
  std::string node;  // kiln build --slurm: the node it ran on ("" here, or not recorded)
  // With its device phases spread over every core: what splitting could make of this unit.
  long ideal_ms(int cores) const;
  double device_ms() const;  // the device phases (front end per arch, cicc, ptxas)
};

struct TargetTime {
  std::string name;
  int units = 0;
  long total_ms = 0;  // sum of its units' durations
  long first_start_ms = 0, last_end_ms = 0;
};

struct ArchTime {
  int arch = 0;
  double ms = 0;
  int units = 0;
};

struct Sample {
  long t_ms = 0;
  double value = 0;
};

struct ProfileInput {
  std::string build_dir;
  std::string kiln_dir;  // kiln's build folder: as kiln-build.json names it, else where it was read ("" none)
  NinjaLog log;
  std::optional<BuildGraph> graph;  // nullopt: ninja was not found
  std::string graph_problem;        // why there is no graph
  std::optional<ExecLog> exec;
  std::optional<launch::CacheStats> cache;
  std::string cache_record;  // the file `cache` was read from (an earlier build's when the last compiled nothing)
  int cache_builds_ago = 0;  // 0: the last build's own record; n: the record kept n records back
  std::optional<NvccTimes> nvcc;
  int cores = 1;
  std::string cores_source = "--cores";
  int buckets = 120;  // samples of the time series
  std::vector<std::string> notes;
};

struct Profile {
  std::string build_dir;
  int log_version = 0, builds_in_log = 0;
  std::vector<Unit> units;  // by start time
  long makespan_ms = 0;
  long total_cpu_ms = 0;
  int cpu_from_exec = 0;  // units whose CPU time came from the exec log (the rest: their duration)
  long critical_path_ms = 0;
  std::vector<size_t> critical_path;  // unit indices, first to last
  bool critical_path_from_graph = false;
  std::string critical_path_method;
  int cores = 1;
  std::string cores_source;
  long lower_bound_ms = 0;
  double efficiency = 0;  // makespan / lower bound (1.0 = at the bound)
  Bound bound_by = Bound::cpu;
  // The critical path if every CUDA unit's device phases ran on all cores (nvcc --split-compile /
  // --threads); -1 when no unit's phases were recorded. The lower bound uses it when known.
  long split_critical_path_ms = -1;
  long bounding_unit = -1;  // index of the unit that bounds the build, when one does
  std::string remedy;       // what would make a build bound by one unit faster
  // The share of their running time the build's jobs spent on a CPU (exec log rusage / wall, over
  // single-threaded jobs); -1 when not recorded. Well below 1 with fewer jobs than cores: other
  // work on the machine, load this build did not cause, took the CPU.
  double job_cpu_share = -1;
  bool contended = false;  // job_cpu_share says the machine was busy with other work
  // The threads the build's own compiles were granted, on average over the build (the cores each
  // job's grant counted, 1 without one): above the cores, the build itself time-shared them, and a job
  // off the CPU was waiting for its own siblings, not for other work.
  double avg_lanes = 0;
  double avg_parallelism = 0;
  int max_parallelism = 0;
  std::vector<Sample> parallelism;
  int lanes = 0;
  std::vector<TargetTime> targets;  // slowest first
  int exec_matched = 0;
  std::vector<std::string> exec_problems;
  long peak_memory_kib = -1;   // concurrent sum of per-unit peaks; -1 unknown
  std::vector<Sample> memory;  // KiB
  std::optional<launch::CacheStats> cache;
  std::string cache_record;  // as ProfileInput's
  int cache_builds_ago = 0;
  std::string arch_method;  // "nvcc --time", "even split of the exec log's archs", "" (cannot be told)
  std::vector<ArchTime> arch_times;
  std::vector<std::string> notes;
};

// Indices of units by duration, longest first.
std::vector<size_t> slowest(const Profile& p, size_t n);

}  // namespace kiln::report
