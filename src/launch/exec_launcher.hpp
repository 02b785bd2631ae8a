#pragma once
// `kiln exec -- <compiler> ARGS...`: the compiler launcher kiln build places before ccache. It
// prunes nvcc architecture flags to the plan (KILN_PRUNE_ARCHS), waits for the memory governor,
// runs the compiler with its output untouched, and records wall time, CPU time and peak memory.
// It never breaks a build: if any part of its own fails, the compiler still runs as given.
//
// What kiln build tells it (the exec log, the governor's ledger and budget, learned history, the
// targets to prune to, thread grants, ...) comes through the environment: core/launcher_env.hpp
// names each variable and what it means.
//
// kiln's own nvcc flags (the thread grant, --time) travel in NVCC_APPEND_FLAGS, after any the user
// set there: ccache does not hash that variable, so a compile hits the same cache entry whatever
// threads it was granted (the objects are equivalent: see thread_grant.hpp).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "io/seams.hpp"
#include "launch/learned_cost.hpp"  // UnitHistory, read_history, history_key, portable_unit_id
#include "launch/nvcc_phases.hpp"

namespace kiln::launch {

// The compile's output (-o) and first source file, and how many device targets an nvcc call has.
std::string output_of(const std::vector<std::string>& args);
std::string source_of(const std::vector<std::string>& args);
int device_targets_of(const std::vector<std::string>& args);
// Whether the command compiles a source to an object (-c, nvcc's --compile/-dc/-dw): under
// kiln build --slurm only these run as job steps; links and other commands run here, on the head
// node, as docs/cli/build.md says.
bool compiles_a_source(const std::vector<std::string>& args);

// What a compile is expected to peak at: learned from an earlier build when known, else the
// conservative default of data/build_jobs.toml for its kind.
std::uint64_t expected_peak_kib(const io::Filesystem& fs, const std::string& history_dir,
                                const std::vector<std::string>& args);
// nvcc's long dependency flags as torch.utils.cpp_extension writes them
// (--generate-dependencies-with-compile --dependency-output X) make ccache 4.x give up
// ("Unsupported source extension: X.d"); the equivalent short forms -MD -MF X are cached.
std::vector<std::string> ccache_friendly_nvcc_args(const std::vector<std::string>& args);

// Runs the launcher; returns the exit status to leave with (the compiler's, or 128 + signal).
int exec_compiler(const std::vector<std::string>& command, io::Seams& s);

}  // namespace kiln::launch
