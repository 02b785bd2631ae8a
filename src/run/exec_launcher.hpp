#pragma once
// `kiln exec -- <compiler> ARGS...`: the compiler launcher kiln build places before ccache. It
// prunes nvcc architecture flags to the plan (KILN_PRUNE_ARCHS), waits for the memory governor,
// runs the compiler with its output untouched, and records wall time, CPU time and peak memory.
// It never breaks a build: if any part of its own fails, the compiler still runs as given.
//
// Environment (set by kiln build): KILN_EXEC_LOG (JSON lines, one per compile), KILN_LEDGER (the
// governor's shared ledger; absent: no governing), KILN_MEM_BUDGET_KIB, KILN_MEM_HISTORY (folder of
// learned peaks per output), KILN_PRUNE_ARCHS (targets in CMake spelling).
#include <cstdint>
#include <string>
#include <vector>

#include "io/seams.hpp"

namespace kiln::run {

struct ExecRecord {
  std::string output, source;
  long long start_ms = 0, wall_ms = 0, cpu_ms = 0, waited_ms = 0;
  long peak_rss_kib = 0;
  int exit = 0;
  int archs = 0;
  std::uint64_t expected_kib = 0;
  bool pruned = false;
  std::string warning;  // the governor could not be used (the compile ran anyway)
};

// The compile's output (-o) and first source file, and how many device targets an nvcc call has.
std::string output_of(const std::vector<std::string>& args);
std::string source_of(const std::vector<std::string>& args);
int device_targets_of(const std::vector<std::string>& args);

// What a compile is expected to peak at: learned from an earlier build when known, else the
// conservative default of data/build_jobs.toml for its kind.
std::uint64_t expected_peak_kib(const io::Filesystem& fs, const std::string& history_dir, const std::vector<std::string>& args);
std::string history_key(const std::string& output);  // file name under the history folder

std::string record_json_line(const ExecRecord& r);

// nvcc's long dependency flags as torch.utils.cpp_extension writes them
// (--generate-dependencies-with-compile --dependency-output X) make ccache 4.x give up
// ("Unsupported source extension: X.d"); the equivalent short forms -MD -MF X are cached.
std::vector<std::string> ccache_friendly_nvcc_args(const std::vector<std::string>& args);

// Runs the launcher; returns the exit status to leave with (the compiler's, or 128 + signal).
int exec_compiler(const std::vector<std::string>& command, io::Seams& s);

}  // namespace kiln::run
