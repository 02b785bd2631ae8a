#pragma once
// One compile's record in kiln-exec.jsonl, written by `kiln exec` (launch/exec_launcher) and read
// by `kiln report` (report/profile): the type and both directions of its JSON live here, so the
// writer and the reader cannot drift apart. One JSON object per line:
//   {"output": "obj path as Ninja names it", "source": "...", "start_ms": <unix epoch ms>,
//    "wall_ms": N, "cpu_ms": N, "peak_rss_kib": N, "exit": N, "waited_ms": N, "archs": N,
//    "expected_kib": N, "pruned": bool,
//    optional: "warning": "...", "node": "...", "attempts": N, "step_cpus": N (kiln build --slurm), "split": N,
//    "threads": N, "cores": N, "grant": "why" (the thread grant), "grant_basis": "...", "grant_share": 0-1,
//    "grant_units": N, "nice": N, "share_nice": N (its CPU weight, shared by its running threads, as one thread's
//    nice), "phases":
//    {"front_end_ms", "host_ms", "link_ms", "other_ms", "archs": {"90":
//    {"device_ms", "ptxas_ms"}}}}
// A build folder without the file is profiled from .ninja_log alone.
#include <cstdint>
#include <string>
#include <vector>

#include "launch/nvcc_phases.hpp"

namespace kiln::launch {

struct ExecRecord {
  std::string output, source;
  long long start_ms = 0;  // unix epoch
  long wall_ms = 0, waited_ms = 0;
  long cpu_ms = -1, peak_rss_kib = -1;  // -1: not recorded
  int exit = 0;
  int archs = 0;                   // device targets of an nvcc compile; 0 for host compilers
  std::uint64_t expected_kib = 0;  // what the governor reserved for it
  bool pruned = false;             // kiln rewrote its -gencode flags to the planned targets
  int split = 0, threads = 0;      // what kiln's launcher granted (0: nothing)
  int cores = 1;                   // the cores its ledger entry counted
  std::string grant;               // why it got (or did not get) extra threads; empty: not considered
  // The share by weight behind the grant (launch/thread_grant rule 5); empty/0: not reached.
  std::string grant_basis;  // what the weights were: "learned CPU time", "estimate", ...
  double grant_share = 0;   // its part of the work of the units sharing the cores
  int grant_units = 0;      // how many units shared them, itself included
  int nice = 0;             // how much kiln raised the compiler's nice value (launch/unit_priority)
  int share_nice = -1;      // its one CPU weight as one thread's nice (launch/thread_share); -1: none
  NvccPhases phases;        // nvcc --time, when recorded
  std::string warning;      // the governor could not be used (the compile ran anyway)
  std::string node;         // kiln build --slurm: the node it ran on (or failed on)
  int attempts = 0;         // kiln build --slurm: steps it took (more than 1: retried)
  int step_cpus = 0;        // kiln build --slurm: the CPUs its step asked (launch/step_cpus); 0: not a step
};

// The record as one line of JSON, newline included. Paths are bytes: never throws on them.
std::string record_json_line(const ExecRecord& r);

struct ExecLog {
  std::vector<ExecRecord> records;    // in file order; a rebuilt output appears more than once
  std::vector<std::string> problems;  // "line N: why", for lines that were skipped
};

// Tolerant by line: a torn last line (a compile killed mid-write) is skipped and reported.
ExecLog parse_exec_log(const std::string& text);

}  // namespace kiln::launch
