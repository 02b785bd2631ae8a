#include <fmt/format.h>

#include "core/duration_text.hpp"
#include "report/render.hpp"
#include "report/profile_remedy.hpp"

#include <algorithm>

namespace kiln::report {

std::string human_ms(double ms) { return core::duration_text(ms, core::ShortSpan::hundredths_under_10s); }

std::string human_kib(double kib) {
  if (kib < 0) return "-";
  if (kib < 10 * 1024) return fmt::format("{:.1f} MiB", kib / 1024);
  if (kib < 1024 * 1024) return fmt::format("{:.0f} MiB", kib / 1024);
  return fmt::format("{:.1f} GiB", kib / 1024 / 1024);
}

namespace {

// A no-op rebuild compiles nothing: the figures are the newest build's that did (drive/build_records).
std::string kept_record_note(const Profile& p) {
  if (p.cache_builds_ago == 0) return "";
  return fmt::format(" (the last build compiled nothing through ccache: these are an earlier build's, {})",
                     p.cache_record);
}

std::string arch_name(int a) { return fmt::format("sm_{}", a); }

std::string shorten(const std::string& s, size_t n) { return s.size() <= n ? s : "..." + s.substr(s.size() - (n - 3)); }

// What kiln exec gave each unit and why (launch/thread_grant, launch/unit_priority), longest first.
std::string grants_text(const Profile& p, size_t top) {
  std::vector<size_t> rows;
  for (size_t i = 0; i < p.units.size(); ++i)
    if (!p.units[i].grant.empty() && p.units[i].grant != "host compile") rows.push_back(i);
  if (rows.empty()) return "";
  std::stable_sort(rows.begin(), rows.end(),
                   [&](size_t a, size_t b) { return p.units[a].duration_ms() > p.units[b].duration_ms(); });
  std::string o = fmt::format(
      "\nthread grants and CPU priority (kiln exec: nvcc --split-compile / --threads, nice)\n  {:>8} {:>5} "
      "{:>4}  {:<40} {}\n",
      "time", "cores", "nice", "unit", "why");
  for (size_t k = 0; k < rows.size() && k < std::max<size_t>(top, 10); ++k) {
    const Unit& u = p.units[rows[k]];
    o += fmt::format("  {:>8} {:>5} {:>4}  {:<40} {}\n", human_ms(u.duration_ms()), u.cores, u.nice,
                     shorten(u.name, 40), u.grant);
  }
  return o;
}

}  // namespace

std::string render_text(const Profile& p, size_t top) {
  std::string o;
  auto line = [&](std::string_view k, const std::string& v) { o += fmt::format("{:<11}{}\n", k, v); };
  line("build", fmt::format("{} (.ninja_log v{}, {} job{}{})", p.build_dir, p.log_version, p.units.size(),
                            p.units.size() == 1 ? "" : "s",
                            p.builds_in_log > 1 ? fmt::format(", latest of {} builds", p.builds_in_log) : ""));
  if (p.units.empty()) {
    for (const auto& n : p.notes) o += "note: " + n + "\n";
    return o;
  }
  line("wall", fmt::format("{} (first job start to last job end)", human_ms(p.makespan_ms)));
  line("CPU", fmt::format(
                  "{} ({})", human_ms(p.total_cpu_ms),
                  p.cpu_from_exec == static_cast<int>(p.units.size()) ? std::string("cpu_ms from kiln-exec.jsonl")
                  : p.cpu_from_exec > 0
                      ? fmt::format("cpu_ms for {} of {} jobs, durations for the rest", p.cpu_from_exec, p.units.size())
                      : std::string("sum of job durations")));
  std::string chain;
  for (size_t k = 0; k < p.critical_path.size(); ++k) {
    if (k == 4 && p.critical_path.size() > 6) {
      chain += fmt::format(" -> ... ({} more)", p.critical_path.size() - 5);
      k = p.critical_path.size() - 1;
    }
    chain += (chain.empty() ? "" : " -> ") + shorten(p.units[p.critical_path[k]].name, 48);
  }
  line("critical", fmt::format("{} over {} job{}: {}", human_ms(p.critical_path_ms), p.critical_path.size(),
                               p.critical_path.size() == 1 ? "" : "s", chain));
  line("", fmt::format("from the {}", p.critical_path_method));
  if (p.split_critical_path_ms >= 0)
    line("bound",
         fmt::format("{} = max(CPU {} / {} cores = {}, critical path with device phases split over the cores {} "
                     "(as built: {}))",
                     human_ms(p.lower_bound_ms), human_ms(p.total_cpu_ms), p.cores,
                     human_ms(static_cast<double>(p.total_cpu_ms) / p.cores), human_ms(p.split_critical_path_ms),
                     human_ms(p.critical_path_ms)));
  else
    line("bound", fmt::format("{} = max(CPU {} / {} cores = {}, critical path {})", human_ms(p.lower_bound_ms),
                              human_ms(p.total_cpu_ms), p.cores,
                              human_ms(static_cast<double>(p.total_cpu_ms) / p.cores), human_ms(p.critical_path_ms)));
  line("", fmt::format("cores from {}", p.cores_source));
  line("efficiency",
       fmt::format("{:.2f}x: the build took {:.2f} times the bound ({}-bound){}", p.efficiency, p.efficiency,
                   p.bound_by == Bound::cpu        ? "CPU"
                   : p.bound_by == Bound::one_unit ? "one-unit"
                                                   : "critical-path",
                   efficiency_reason(p)));
  if (!p.remedy.empty()) line("remedy", p.remedy);
  line("parallel", fmt::format("average {:.1f}, peak {} concurrent jobs ({} cores)", p.avg_parallelism,
                               p.max_parallelism, p.cores));
  line("memory", p.peak_memory_kib >= 0
                     ? fmt::format("peak {} (sum of the peak RSS of concurrent compiles; {} of {} jobs recorded)",
                                   human_kib(p.peak_memory_kib), p.exec_matched, p.units.size())
                     : std::string("unknown (no kiln-exec.jsonl records for this build)"));
  if (p.cache)
    line("cache", fmt::format("{} hits ({} remote), {} misses, {:.0f}% hit rate{}", p.cache->hits, p.cache->remote_hits,
                              p.cache->misses, 100 * p.cache->hit_rate(), kept_record_note(p)));
  else
    line("cache", "unknown (no kiln-ccache-stats.log: built without kiln build or without ccache)");

  o += fmt::format("\nslowest units\n  {:>8} {:>8} {:>9} {:<5} {}\n", "time", "cpu", "peak RSS", "kind", "unit");
  for (size_t i : slowest(p, top)) {
    const Unit& u = p.units[i];
    o +=
        fmt::format("  {:>8} {:>8} {:>9} {:<5} {}{}\n", human_ms(u.duration_ms()), human_ms(u.cpu_ms),
                    human_kib(u.peak_rss_kib), to_string(u.kind), shorten(u.name, 70), u.critical ? "  *critical" : "");
  }
  o += fmt::format("\nslowest targets\n  {:>8} {:>6} {}\n", "time", "units", "target");
  for (size_t i = 0; i < p.targets.size() && i < top; ++i)
    o += fmt::format("  {:>8} {:>6} {}\n", human_ms(p.targets[i].total_ms), p.targets[i].units, p.targets[i].name);

  if (!p.arch_times.empty()) {
    double total = 0;
    for (const auto& a : p.arch_times) total += a.ms;
    o += fmt::format("\ntime per architecture ({})\n  {:<8} {:>8} {:>6} {:>6}\n", p.arch_method, "arch", "time",
                     "share", "units");
    for (const auto& a : p.arch_times)
      o += fmt::format("  {:<8} {:>8} {:>5.0f}% {:>6}\n", arch_name(a.arch), human_ms(a.ms),
                       total > 0 ? 100 * a.ms / total : 0.0, a.units);
  } else if (!p.arch_method.empty()) {
    o += fmt::format("\ntime per architecture: {}\n", p.arch_method);
    for (size_t i : slowest(p, top))
      if (p.units[i].archs > 0)
        o += fmt::format("  {:>8} per arch x {} {}\n", human_ms(p.units[i].per_arch_estimate_ms), p.units[i].archs,
                         shorten(p.units[i].name, 70));
  }
  // Where each CUDA unit's time went, as nvcc measured it.
  {
    std::vector<size_t> rows;
    for (size_t i : slowest(p, top))
      if (!p.units[i].phases.archs.empty()) rows.push_back(i);
    if (!rows.empty()) {
      o += fmt::format(
          "\nnvcc phases (nvcc --time per unit; device = front end + cicc per arch)\n  {:>8} {:>9} {:<22} {:>8} {:>8} "
          "{:>8}  {:<9} {}\n",
          "time", "front end", "device / ptxas per arch", "host", "link", "other", "threads", "unit");
      for (size_t i : rows) {
        const Unit& u = p.units[i];
        std::string archs;
        for (const auto& [a, ph] : u.phases.archs)
          archs += fmt::format("{}{} {}/{}", archs.empty() ? "" : ", ", arch_name(a), human_ms(ph.device_ms),
                               human_ms(ph.ptxas_ms));
        const std::string threads =
            u.split > 1 || u.threads > 1 ? fmt::format("s{} t{}", std::max(1, u.split), std::max(1, u.threads)) : "1";
        o += fmt::format("  {:>8} {:>9} {:<22} {:>8} {:>8} {:>8}  {:<9} {}\n", human_ms(u.duration_ms()),
                         human_ms(u.phases.front_end_ms), archs, human_ms(u.phases.host_ms), human_ms(u.phases.link_ms),
                         human_ms(u.phases.other_ms), threads, shorten(u.name, 60));
      }
    }
  }
  o += grants_text(p, top);
  if (!p.exec_problems.empty())
    o += fmt::format("\nkiln-exec.jsonl: skipped {} line{} ({})\n", p.exec_problems.size(),
                     p.exec_problems.size() == 1 ? "" : "s", p.exec_problems.front());
  if (!p.notes.empty()) o += "\n";
  for (const auto& n : p.notes) o += "note: " + n + "\n";
  return o;
}

}  // namespace kiln::report
