#pragma once
// The options `kiln plan` and `kiln build` share, declared once so both read the same flags,
// environment variables and [section] of kiln.toml.
#include <CLI/CLI.hpp>

#include "cli/setting_source.hpp"
#include "io/interrupt.hpp"
#include "io/seams.hpp"
#include "plan/make_plan.hpp"

namespace kiln::cli {

struct PlanOptions : plan::BuildRequest {
  int jobs_flag = 0;
  bool no_ccache = false;
  bool no_governor = false;
  bool no_split = false;
  bool no_wheel_cache = false;
  bool keep_project_archs = false;  // --keep-project-archs: the project's own nvcc architecture flags compile
  std::string mem_budget;
  bool example = false;  // --example: the bundled example
  bool slurm = false;    // --slurm: each compile a job step of the Slurm allocation (build only)
};

// "12G", "900M", "2048K", "1073741824" (bytes) -> KiB: K, M and G are powers of 1024 (as Slurm and the
// kernel count memory), Ki/Mi/Gi too; less than 1 KiB is no budget (nullopt).
std::optional<std::uint64_t> parse_size_kib(const std::string& text);

void add_plan_options(CLI::App& app, PlanOptions& o);
// kiln build's own: --slurm (KILN_SLURM, `slurm = true` in [build] of kiln.toml).
void add_build_options(CLI::App& app, PlanOptions& o);

// Resolves DIR, probes the machine and GPUs, and plans; throws UsageError / Failure on errors.
// `origins` names where a bad or forcing setting came from.
plan::Plan plan_or_throw(const std::string& dir, PlanOptions& o, io::Seams& s, const SettingOrigins& origins = {});

// plan_or_throw that honours a stop signal (SIGINT, SIGTERM, SIGHUP) caught by `interrupts`: the
// probe running ends, no other starts, and the answer is nullopt, whatever planning made of it.
std::optional<plan::Plan> plan_unless_stopped(const std::string& dir, PlanOptions& o, io::Seams& s,
                                              const SettingOrigins& origins, io::BuildInterrupts& interrupts);

// After a stop while planning: waits, bounded, until no child of kiln runs, then says so on stderr
// and, with --json, as the error document. Returns 128 + signal, or 1 when something still runs.
int stopped_while_planning(io::Seams& s, const io::BuildInterrupts& interrupts, const std::string& command, bool json);

}  // namespace kiln::cli
