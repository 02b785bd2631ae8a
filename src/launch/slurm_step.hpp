#pragma once
// A compile unit as a Slurm job step (kiln build --slurm). The launcher (`kiln exec`) runs where
// Ninja runs; instead of the compiler it runs `srun ... -- kiln exec -- COMPILER...`, asking for
// the memory the governor expects the unit to peak at and the cores its thread grant gave it.
// On the node, kiln exec sees KILN_STEP_REPORT and runs the compiler as given, writing the node's
// name and then the compiler's exit, peak memory and times to that file (on the shared build
// folder): the launcher learns from it where the unit ran and whether it ran at all. A step that
// never reported an exit was killed or lost its node: it is retried elsewhere, a bounded number
// of times, unless the allocation itself has ended.
// The watchdog: srun waits at most check_s for a step to start (--immediate); then, and after a
// lost step, kiln asks sinfo which nodes of the allocation are dead (launch/slurm_nodes). Dead
// nodes are excluded; a step that still does not start while a node is dead is asked once more
// with --overlap (Slurm may hold a shrunk job's cores), and then the build stops naming the node.
// With no node dead, a busy allocation is waited for, in slices, up to step_wait_s.
//
// Environment (set by kiln build): KILN_SLURM_UNITS (1: on), KILN_SLURM_TAG (the steps' name, so kiln
// build can cancel what is left), KILN_SLURM_REPORTS (folder of step reports), KILN_SLURM_RETRIES,
// KILN_SLURM_NODE_MEM_KIB and KILN_SLURM_NODE_CPUS (the smallest node's memory and CPUs in the
// allocation: a step never asks more, or Slurm refuses it), KILN_SLURM_NODES (the allocation's
// nodes), KILN_SLURM_SELF (kiln's binary), KILN_SLURM_SRUN / KILN_SLURM_SQUEUE / KILN_SLURM_SINFO
// (the tools; default on PATH), SLURM_JOB_ID (the allocation).
#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "io/seams.hpp"

namespace kiln::launch {

struct SlurmConfig {
  std::string job_id, tag, reports, srun = "srun", squeue = "squeue", sinfo = "sinfo";
  std::vector<std::string> nodes;  // the allocation's, as kiln build read them; empty: unknown
  std::vector<int> cpus;           // each node's CPUs in the allocation (0: unknown, or lost before the build)
  std::string self;                // kiln's own binary, at the same path on the nodes
  int retries = 2;                 // further attempts after the first
  std::uint64_t node_mem_kib = 0;  // 0: unknown
  int node_cpus = 0;               // the smallest node's CPUs in the allocation, 0: unknown
  // How long srun may wait for a step to start (--immediate): steps of another build in the
  // allocation, or one that never ends, can hold its CPUs and memory for ever; KILN_SLURM_STEP_WAIT.
  int step_wait_s = 600;
  // How long one srun may wait for its step to start before kiln looks at the nodes.
  int check_s = 30;
  int slice_s() const { return std::min(step_wait_s, check_s); }
};
// nullopt when the launcher is not asked to use Slurm (or SLURM_JOB_ID is missing).
std::optional<SlurmConfig> slurm_config(const io::Environment& env);

// What is left of the allocation once nodes died (the watchdog notes them, launch/slurm_nodes): the
// CPUs and nodes of the others. nullopt while no node of this build is noted dead.
struct RoomLeft {
  int cpus = 0, nodes = 0;
  std::vector<std::string> dead;
};
std::optional<RoomLeft> room_left(const SlurmConfig& c, const io::Filesystem& fs);

struct StepAsk {
  std::uint64_t mem_kib = 0;         // expected peak (the governor's learned one, with headroom)
  int cores = 1;                     // the thread grant's cores
  std::vector<std::string> exclude;  // nodes that failed this unit, or are dead
  bool overlap = false;              // share CPUs with other steps (a node of the job died)
};

// srun's argv for one unit: one task on one node (-N1 -n1), its own cores and memory only
// (--exact), named for cancelling, a single Ctrl-C ends it (--quit-on-interrupt).
std::vector<std::string> step_argv(const SlurmConfig& c, const StepAsk& ask, const std::vector<std::string>& command);

// What the node side wrote. `finished` is false when the step never got to the compiler's end.
struct StepReport {
  std::string node, step;
  bool finished = false;
  int exit = 0;
  long peak_rss_kib = 0, cpu_ms = 0, wall_ms = 0;
};
std::optional<StepReport> parse_step_report(const std::string& text);
std::string format_step_report(const StepReport& r);

// The node srun's error lines name when a step failed before it ran ("" when none).
std::string node_named_by_srun(const std::string& srun_err);

// The node side: runs `command`, reporting to `report_path`; returns its exit (128 + signal).
int run_step_on_node(const std::vector<std::string>& command, const std::string& report_path, io::Seams& s);

// The launcher side: runs the unit as a step, retrying on other nodes. The result carries the
// compiler's exit, peak and CPU time as the node measured them; `node` is where it ran (or the
// nodes it failed on). `output` (the unit's -o) is removed when a step ends without finishing, so
// no half-written object is left for Ninja to trust.
struct StepRun {
  io::ProcessResult result;
  std::string node;
  std::string step;  // the Slurm step that finished it ("7.3"), "" when none did
  int attempts = 0;
  long queued_ms = 0;  // srun's time beyond the compiler's on the node: waiting for Slurm to place it
  std::vector<std::string> failed_nodes;
  std::string error;  // kiln's own message when the unit did not finish (already printed)
};
StepRun run_as_step(const SlurmConfig& c, const StepAsk& ask, const io::ProcessSpec& spec, const std::string& output,
                    io::Seams& s);

}  // namespace kiln::launch
