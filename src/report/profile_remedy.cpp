#include "report/profile_remedy.hpp"

#include "core/duration_text.hpp"
#include <fmt/format.h>

#include <algorithm>

namespace kiln::report {

void judge_contention(Profile& p) {
  double cpu = 0, wall = 0;
  for (const auto& u : p.units) {
    // Only jobs on one thread: a split or threaded nvcc can use more CPU than wall time.
    if (u.cpu_ms < 0 || u.split > 1 || u.threads > 1) continue;
    cpu += static_cast<double>(u.cpu_ms);
    wall += static_cast<double>(std::max(0L, u.duration_ms() - u.waited_ms));
  }
  if (wall < 2000) return;  // too little recorded to judge
  p.job_cpu_share = std::min(1.0, cpu / wall);
  double lane_ms = 0;
  for (const auto& u : p.units)
    lane_ms +=
        static_cast<double>(std::max(1, u.cores)) * static_cast<double>(std::max(0L, u.duration_ms() - u.waited_ms));
  p.avg_lanes = p.makespan_ms > 0 ? lane_ms / static_cast<double>(p.makespan_ms) : 0;
  // A compiler alone on a core spends nearly all its time on it (I/O is a few percent); below
  // 75% while the build ran no more jobs, and no more of its own threads, than cores, something
  // else had the CPU. (mamba on the GPU host: ten jobs on 16 cores, but about 30 threads granted.)
  p.contended = p.job_cpu_share < 0.75 && p.avg_parallelism <= p.cores + 0.5 && p.avg_lanes <= p.cores + 0.5;
}

std::string one_unit_remedy(const Profile& p, const Unit& u, long t0) {
  std::string got = u.split > 1 || u.threads > 1
                        ? fmt::format("it ran with --split-compile={} --threads={}", u.split, u.threads)
                    : u.grant.empty() ? std::string("it ran on one thread")
                                      : fmt::format("it ran on one thread ({})", u.grant);
  const int lanes = std::max(1, u.split) * std::max(1, u.threads);
  if (p.contended)
    return fmt::format(
        "{} is {} of the {} build, but the build's jobs were on a CPU only {:.0f}% of the time: other work on "
        "the machine took the cores, so more threads would not shorten it; build when the machine is idle, "
        "or with fewer other jobs beside it",
        u.name, core::duration_text(u.duration_ms()), core::duration_text(p.makespan_ms), 100 * p.job_cpu_share);
  if (p.job_cpu_share >= 0 && p.job_cpu_share < 0.75 && p.avg_lanes > p.cores + 0.5)
    // The build's own threads outnumbered the cores: what held the unit back was a thread's share.
    return fmt::format(
        "{} is {} of the {} build ({}), beside {:.0f} threads of the build's compiles on {} cores on average, and "
        "the build's jobs were on a CPU only {:.0f}% of the time: its serial parts (front end, its largest kernels, "
        "host compile) got one thread's share of a core; fewer threads beside it (--no-split), or, as root, one CPU "
        "weight per compile that its running threads share (--cpu-share, not yet measured on many cores: "
        "docs/cli/build.md)",
        u.name, core::duration_text(u.duration_ms()), core::duration_text(p.makespan_ms), got, p.avg_lanes, p.cores,
        100 * p.job_cpu_share);
  if (u.kind == UnitKind::cuda && lanes * 4 >= p.cores * 3)
    // It already had (nearly) every core: more threads would not shorten it.
    return fmt::format(
        "{} is {} of the {} build and already ran on {} of the {} cores ({}); what is left is serial in nvcc "
        "(front end, host compile, the largest kernels' optimisation): split the source file into several units, or "
        "instantiate fewer templates per unit",
        u.name, core::duration_text(u.duration_ms()), core::duration_text(p.makespan_ms), lanes, p.cores, got);
  if (u.kind != UnitKind::cuda)
    return fmt::format("{} is {} of the {} build: split the source file, or compile it earlier (it starts at {})",
                       u.name, core::duration_text(u.duration_ms()), core::duration_text(p.makespan_ms),
                       core::duration_text(u.start_ms - t0));
  std::string r = fmt::format(
      "{} is {} of the {} build ({}); give it more of the {} cores: nvcc --split-compile=N (device optimisation "
      "in parallel){}; kiln build grants these from idle cores unless --no-split",
      u.name, core::duration_text(u.duration_ms()), core::duration_text(p.makespan_ms), got, p.cores,
      u.archs > 1 ? " and --threads=N (its architectures in parallel)" : "");
  if (p.split_critical_path_ms < 0)
    return r + "; its phases were not recorded (kiln build records nvcc --time per unit), so the gain cannot be sized";
  // Promise only a real gain: a critical path that stays within 5% of what it took is none.
  if (p.split_critical_path_ms * 20 >= p.critical_path_ms * 19)
    return fmt::format(
        "{} is {} of the {} build ({}), and its device phases ({}) are too small a part of it for "
        "--split-compile to shorten the build: split the source file into several units",
        u.name, core::duration_text(u.duration_ms()), core::duration_text(p.makespan_ms), got,
        core::duration_text(static_cast<long>(u.device_ms())));
  // A bound, not a forecast: nvcc's split spreads a unit's kernels, so its few largest ones keep a floor
  // (mamba e9594ce's longest unit on the GPU host: this bound 42 s, 62 s alone with 32 split threads;
  // docs/benchmarks.md, Session 17).
  return r + fmt::format(
                 "; with its device phases ({}) spread evenly over all cores the critical path would be {} instead "
                 "of {}, at best (a unit whose few largest kernels hold most of its device work gains less)",
                 core::duration_text(static_cast<long>(u.device_ms())), core::duration_text(p.split_critical_path_ms),
                 core::duration_text(p.critical_path_ms));
}

std::string efficiency_reason(const Profile& p) {
  if (p.bound_by == Bound::one_unit || p.efficiency <= 1.25) return "";
  if (p.contended)
    return fmt::format(
        "; the build's jobs were on a CPU only {:.0f}% of the time they ran: other work on the machine "
        "(load this build did not cause) took the rest, not kiln's scheduling",
        100 * p.job_cpu_share);
  if (p.job_cpu_share >= 0) return "; scheduling or too few jobs left time on the table";
  return "; scheduling, too few jobs or other load on the machine left time on the table (kiln build's exec log would "
         "tell)";
}

}  // namespace kiln::report
