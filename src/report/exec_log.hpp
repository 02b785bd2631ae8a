#pragma once
// The records `kiln exec` (the memory-governing compiler launcher) appends to $KILN_EXEC_LOG, one
// JSON object per compile:
//   {"output": "obj path as Ninja names it", "source": "...", "start_ms": <unix epoch ms>,
//    "wall_ms": N, "cpu_ms": N, "peak_rss_kib": N, "exit": N, "waited_ms": N, "archs": N,
//    optional: "split": N, "threads": N, "cores": N, "grant": "why" (the launcher's thread grant),
//    "node": "n1", "attempts": N (kiln build --slurm: where it ran, the steps it took),
//    "phases": {"front_end_ms", "host_ms", "link_ms", "other_ms", "archs": {"90": {"device_ms", "ptxas_ms"}}}}
// A build folder without the file is profiled from .ninja_log alone.
#include <string>
#include <vector>

#include "launch/nvcc_phases.hpp"

namespace kiln::report {

struct ExecRecord {
  std::string output, source;
  long long start_ms = 0;  // unix epoch
  long wall_ms = 0, waited_ms = 0;
  long cpu_ms = -1, peak_rss_kib = -1;  // -1: not recorded
  int exit = 0;
  int archs = 0;  // device targets of an nvcc compile; 0 for host compilers
  int split = 0, threads = 0, cores = 1;  // what kiln's launcher granted (0: nothing)
  std::string grant;                      // why; empty when the launcher did not consider it
  std::string node;                       // kiln build --slurm: the Slurm node it ran on
  int attempts = 1;
  launch::NvccPhases phases;                 // nvcc --time, when recorded
};

struct ExecLog {
  std::vector<ExecRecord> records;  // in file order; a rebuilt output appears more than once
  std::vector<std::string> problems;  // "line N: why", for lines that were skipped
};

// Tolerant by line: a torn last line (a compile killed mid-write) is skipped and reported.
ExecLog parse_exec_log(const std::string& text);

}  // namespace kiln::report
