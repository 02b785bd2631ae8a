#include "report/compute_profile.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <queue>
#include <set>

#include "report/arch_times.hpp"
#include "report/critical_path.hpp"
#include "report/profile_remedy.hpp"
#include "report/profile_units.hpp"

namespace kiln::report {
namespace {

// Concurrency by time: a sweep over start (+1) and end (-1) events, with the value each unit adds.
struct Sweep {
  double peak = 0;
  std::vector<Sample> buckets;  // the average (or maximum) per bucket
};

Sweep sweep(const std::vector<Unit>& units, long t0, long span, int nb, const std::vector<double>& weight,
            bool bucket_max) {
  Sweep out;
  std::vector<std::pair<long, double>> ev;
  for (size_t i = 0; i < units.size(); ++i) {
    if (weight[i] <= 0) continue;
    ev.emplace_back(units[i].start_ms - t0, weight[i]);
    ev.emplace_back(units[i].end_ms - t0, -weight[i]);
  }
  // Ends before starts at the same instant: a job starting as another ends does not overlap it.
  std::sort(ev.begin(), ev.end(),
            [](auto& a, auto& b) { return a.first != b.first ? a.first < b.first : a.second < b.second; });
  if (span <= 0 || nb <= 0) return out;
  nb = static_cast<int>(std::min<long>(nb, span));
  const double width = static_cast<double>(span) / nb;
  std::vector<double> area(nb, 0), maxv(nb, 0);
  double level = 0;
  long prev = 0;
  auto spread = [&](long a, long b, double v) {  // level v held over [a, b)
    if (b <= a) return;
    int ba = std::min(nb - 1, static_cast<int>(a / width)), bb = std::min(nb - 1, static_cast<int>((b - 1) / width));
    for (int k = ba; k <= bb; ++k) {
      double lo = std::max<double>(a, k * width), hi = std::min<double>(b, (k + 1) * width);
      if (hi > lo) area[k] += v * (hi - lo);
      maxv[k] = std::max(maxv[k], v);
    }
  };
  for (const auto& [t, d] : ev) {
    spread(prev, t, level);
    prev = t;
    level += d;
    out.peak = std::max(out.peak, level);
  }
  for (int k = 0; k < nb; ++k)
    out.buckets.push_back(Sample{static_cast<long>(k * width), bucket_max ? maxv[k] : area[k] / width});
  return out;
}

// Lanes: each job on the lowest lane free when it starts, as a core would run it.
void assign_lanes(Profile& p) {
  std::vector<size_t> order(p.units.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return p.units[a].start_ms < p.units[b].start_ms; });
  std::priority_queue<std::pair<long, int>, std::vector<std::pair<long, int>>, std::greater<>> busy_lanes;
  std::set<int> free_lanes;
  for (size_t i : order) {
    Unit& u = p.units[i];
    while (!busy_lanes.empty() && busy_lanes.top().first <= u.start_ms) {
      free_lanes.insert(busy_lanes.top().second);
      busy_lanes.pop();
    }
    if (free_lanes.empty()) {
      u.lane = p.lanes++;
    } else {
      u.lane = *free_lanes.begin();
      free_lanes.erase(free_lanes.begin());
    }
    busy_lanes.emplace(u.end_ms, u.lane);
  }
}

// Time per target, slowest first.
void target_times(Profile& p) {
  std::map<std::string, TargetTime> targets;
  for (const auto& u : p.units) {
    auto& t = targets[u.target];
    if (t.units == 0) {
      t.name = u.target;
      t.first_start_ms = u.start_ms;
    }
    ++t.units;
    t.total_ms += u.duration_ms();
    t.first_start_ms = std::min(t.first_start_ms, u.start_ms);
    t.last_end_ms = std::max(t.last_end_ms, u.end_ms);
  }
  for (auto& [k, t] : targets) p.targets.push_back(t);
  std::stable_sort(p.targets.begin(), p.targets.end(), [](auto& a, auto& b) { return a.total_ms > b.total_ms; });
}

}  // namespace

Profile compute_profile(const ProfileInput& in) {
  Profile p;
  p.build_dir = in.build_dir;
  p.log_version = in.log.version;
  p.builds_in_log = in.log.builds;
  p.cores = std::max(1, in.cores);
  p.cores_source = in.cores_source;
  p.cache = in.cache;
  p.cache_record = in.cache_record;
  p.cache_builds_ago = in.cache_builds_ago;
  p.notes = in.notes;

  const UnitOf unit_of = join_units(in, p);
  if (p.units.empty()) {
    p.notes.push_back("the latest build ran no steps (everything was up to date)");
    p.critical_path_method = "none";
    return p;
  }
  long t0 = p.units.front().start_ms, t1 = 0;
  for (const auto& u : p.units) {
    t0 = std::min(t0, u.start_ms);
    t1 = std::max(t1, u.end_ms);
  }
  p.makespan_ms = t1 - t0;

  long busy = 0;
  for (const auto& u : p.units) {
    busy += u.duration_ms();
    if (u.cpu_ms >= 0) {
      p.total_cpu_ms += u.cpu_ms;
      ++p.cpu_from_exec;
    } else {
      p.total_cpu_ms += u.duration_ms();
    }
  }

  long cp = 0;
  if (in.graph) {
    p.critical_path = graph_critical_path(*in.graph, p.units, unit_of, cp);
    p.critical_path_from_graph = true;
    p.critical_path_method = "dependency graph (ninja -t graph)";
    // A unit the graph does not know (build.ninja changed since) is at least its own path.
    for (size_t i = 0; i < p.units.size(); ++i)
      if (!in.graph->producer.count(p.units[i].name) && p.units[i].duration_ms() > cp) {
        cp = p.units[i].duration_ms();
        p.critical_path = {i};
      }
  } else {
    p.critical_path = chain_critical_path(p.units, cp);
    p.critical_path_method = "longest chain of jobs that ran one after another (" +
                             (in.graph_problem.empty() ? std::string("no dependency graph") : in.graph_problem) +
                             "): an upper estimate of the true critical path";
  }
  p.critical_path_ms = cp;
  for (size_t i : p.critical_path) p.units[i].critical = true;

  const long cpu_bound = (p.total_cpu_ms + p.cores - 1) / p.cores;
  // What splitting could do: the same critical path with every unit's recorded device phases
  // spread over all cores (a bound: nvcc's split does not scale perfectly).
  long bound_cp = cp;
  if (std::any_of(p.units.begin(), p.units.end(), [](const Unit& u) { return u.device_ms() > 0; })) {
    std::vector<Unit> ideal = p.units;
    for (auto& u : ideal) u.end_ms = u.start_ms + u.waited_ms + u.ideal_ms(p.cores);
    long split_cp = 0;
    if (in.graph) {
      graph_critical_path(*in.graph, ideal, unit_of, split_cp);
      for (size_t i = 0; i < ideal.size(); ++i)
        if (!in.graph->producer.count(ideal[i].name)) split_cp = std::max(split_cp, ideal[i].duration_ms());
    } else {
      // The chain of the measured path, each unit at its ideal time, and no less than any one unit.
      // (Each copy's duration is already its ideal time: applying ideal_ms again would split twice.)
      for (size_t i : p.critical_path) split_cp += ideal[i].duration_ms() - ideal[i].waited_ms;
      for (const auto& u : ideal) split_cp = std::max(split_cp, u.duration_ms() - u.waited_ms);
    }
    p.split_critical_path_ms = std::min(split_cp, cp);
    bound_cp = p.split_critical_path_ms;
  }
  p.lower_bound_ms = std::max(cpu_bound, bound_cp);
  p.bound_by = bound_cp >= cpu_bound ? Bound::critical_path : Bound::cpu;
  // One unit bounds the build when it alone is at least 60% of the critical path and of the wall time.
  for (size_t i : p.critical_path) {
    const Unit& u = p.units[i];
    if (u.duration_ms() * 10 >= std::max(cp, 1L) * 6 && u.duration_ms() * 10 >= p.makespan_ms * 6 &&
        (p.bounding_unit < 0 || u.duration_ms() > p.units[p.bounding_unit].duration_ms()))
      p.bounding_unit = static_cast<long>(i);
  }
  p.avg_parallelism = p.makespan_ms > 0 ? static_cast<double>(busy) / p.makespan_ms : 0.0;
  judge_contention(p);
  if (p.bounding_unit >= 0 && cp >= cpu_bound) {
    p.bound_by = Bound::one_unit;
    p.remedy = one_unit_remedy(p, p.units[p.bounding_unit], t0);
  }
  p.efficiency = p.lower_bound_ms > 0 ? static_cast<double>(p.makespan_ms) / p.lower_bound_ms : 1.0;

  std::vector<double> ones(p.units.size(), 1.0);
  auto par = sweep(p.units, t0, p.makespan_ms, in.buckets, ones, false);
  p.parallelism = par.buckets;
  p.max_parallelism = static_cast<int>(par.peak);

  assign_lanes(p);

  if (p.exec_matched > 0) {
    std::vector<double> rss;
    for (const auto& u : p.units) rss.push_back(u.peak_rss_kib > 0 ? static_cast<double>(u.peak_rss_kib) : 0.0);
    auto mem = sweep(p.units, t0, p.makespan_ms, in.buckets, rss, true);
    p.peak_memory_kib = static_cast<long>(mem.peak);
    p.memory = mem.buckets;
  }

  target_times(p);
  arch_times(in, p);
  if (in.exec && p.exec_matched == 0 && !in.exec->records.empty())
    p.notes.push_back("kiln-exec.jsonl has records, but none for the outputs of the latest build");
  if (p.builds_in_log > 1)
    p.notes.push_back(fmt::format(".ninja_log holds {} builds; this profile is of the latest", p.builds_in_log));
  return p;
}

}  // namespace kiln::report
