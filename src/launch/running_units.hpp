#pragma once
// The compiles running now, for `kiln build`'s progress line. Ninja writing to a pipe prints a step
// only when it finishes, so its last status names the last finished step; the launcher (kiln exec)
// says what runs instead: one small file per compile, BUILD/.kiln/running/<pid>, written before
// the compiler starts and removed when it ends. A file per compile, not a line in the governor's
// ledger: it needs no lock (a reader never holds up a compile) and exists with --no-governor's
// ledger absent too.
//
// Best effort both ways: a launcher that cannot write its file still runs the compiler, and a
// reader reads a bounded number of small files and skips what it cannot parse.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "io/fs.hpp"
#include "io/process_table.hpp"

namespace kiln::launch {

struct RunningUnit {
  long pid = 0;
  std::uint64_t proc_start = 0;  // the launcher's start time (/proc/PID/stat), with pid its identity
  long long start_ms = 0;        // unix epoch ms when the compile started
  std::string output;            // its -o, as the build gave it
  // kiln build --slurm: the step has not started on a node yet (it waits in srun for CPUs or
  // memory); the node's kiln exec rewrites the file when it starts: start_ms then, and its node.
  bool queued = false;
  std::string node;
};

// One line: "pid=4242 proc_start=123 start_ms=1790000000000 output=CMakeFiles/x.dir/a.cu.o", with
// " queued=1" and " node=n1" before the output when they are set.
std::string format_running(const RunningUnit& u);
std::optional<RunningUnit> parse_running(std::string_view text);

// Writes the launcher's file into `dir`; returns its path, or "" when it could not (no matter).
std::string mark_running(io::Filesystem& fs, const std::string& dir, const RunningUnit& u);

// On the node, as the step starts: the launcher's file at `path` says the compile runs there since
// `now_ms` (not queued). Best effort: false when the file is not there or not one.
bool mark_step_started(io::Filesystem& fs, const std::string& path, const std::string& node, long long now_ms);

// What runs now, the longest-running first. Reads at most `max_files` files of at most 4 KiB each;
// a file whose process is gone (a launcher killed by SIGKILL) is removed, one still being written
// (unparsable) is skipped.
std::vector<RunningUnit> running_units(io::Filesystem& fs, const std::string& dir, const io::ProcessTable& procs,
                                       size_t max_files = 256);

}  // namespace kiln::launch
