#include "report/profile.hpp"

#include "core/duration_text.hpp"
#include "core/text.hpp"
#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <queue>
#include <set>

namespace kiln::report {
namespace {

bool is_library(const std::string& name) {
  return core::ends_with(name, ".a") || core::ends_with(name, ".so") || name.find(".so.") != std::string::npos ||
         core::ends_with(name, ".dylib");
}

// cuda / c++ / link / other, from the rule when the graph names it, else from the file name
// (CMake: x.cu.o; torch.utils.cpp_extension: x.cuda.o).
UnitKind kind_of(const Unit& u, const std::string& rule) {
  if (u.archs > 0 || rule.find("CUDA_COMPILER") != std::string::npos || rule == "cuda_compile" ||
      core::ends_with(u.name, ".cu.o") || core::ends_with(u.name, ".cuda.o"))
    return UnitKind::cuda;
  if (rule.find("LINKER") != std::string::npos || rule == "link" || is_library(core::base_name(u.name)))
    return UnitKind::link;
  if (rule.find("_COMPILER") != std::string::npos || rule == "compile" || core::ends_with(u.name, ".o") ||
      core::ends_with(u.name, ".obj"))
    return UnitKind::cxx;
  return UnitKind::other;
}

std::string target_of(const std::string& output) {
  auto pos = output.find("CMakeFiles/");
  if (pos != std::string::npos) {
    auto start = pos + 11;
    auto dir = output.find(".dir/", start);
    if (dir != std::string::npos) return output.substr(start, dir - start);
  }
  std::string b = core::base_name(output);
  if (is_library(b)) {
    if (b.rfind("lib", 0) == 0) b = b.substr(3);
    b = b.substr(0, b.find('.'));
    return b;
  }
  auto slash = output.find_last_of('/');
  if (slash != std::string::npos && (core::ends_with(output, ".o") || core::ends_with(output, ".obj")))
    return output.substr(0, slash);
  return b;
}

// nvcc names the source as it was given: absolute from CMake, relative to the build folder when
// ccache's base_dir rewrote it (../../proj/a.cu); the graph has it absolute.
bool same_file(const std::string& graph_path, const std::string& nvcc_path, const std::string& build_dir) {
  if (graph_path == nvcc_path) return true;
  if (nvcc_path.empty() || nvcc_path[0] == '/') return false;
  if (!build_dir.empty() && build_dir[0] == '/' &&
      (std::filesystem::path(build_dir) / nvcc_path).lexically_normal().string() == graph_path)
    return true;
  std::string rest = nvcc_path;
  while (rest.rfind("../", 0) == 0 || rest.rfind("./", 0) == 0) rest.erase(0, rest.find('/') + 1);
  return core::ends_with(graph_path, "/" + rest);
}

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

// Longest weighted path through the graph, ending anywhere: cp(edge) = weight + max cp(producers
// of its inputs). Iterative so deep graphs do not exhaust the stack.
std::vector<size_t> graph_critical_path(const BuildGraph& g, const std::vector<Unit>& units,
                                        const std::map<std::string, size_t>& unit_of, long& length) {
  const size_t n = g.edges.size();
  std::vector<long> weight(n, 0), best(n, -1);
  std::vector<long> pred(n, -1);
  std::vector<long> unit(n, -1);
  for (size_t e = 0; e < n; ++e)
    for (const auto& o : g.edges[e].outputs)
      if (auto it = unit_of.find(o); it != unit_of.end()) {
        unit[e] = static_cast<long>(it->second);
        const Unit& u = units[it->second];
        weight[e] = std::max(0L, u.duration_ms() - u.waited_ms);
        break;
      }
  std::vector<char> state(n, 0);  // 0 new, 1 open, 2 done
  for (size_t root = 0; root < n; ++root) {
    if (state[root]) continue;
    std::vector<std::pair<size_t, size_t>> stack = {{root, 0}};
    state[root] = 1;
    while (!stack.empty()) {
      auto& [e, next] = stack.back();
      const auto& ins = g.edges[e].inputs;
      if (next < ins.size()) {
        auto it = g.producer.find(ins[next++]);
        if (it != g.producer.end() && state[it->second] == 0) {
          state[it->second] = 1;
          stack.emplace_back(it->second, 0);
        }
        continue;
      }
      long b = 0, p = -1;
      for (const auto& in : ins)
        if (auto it = g.producer.find(in); it != g.producer.end() && state[it->second] == 2 && best[it->second] > b) {
          b = best[it->second];
          p = static_cast<long>(it->second);
        }
      best[e] = weight[e] + b;
      pred[e] = p;
      state[e] = 2;
      stack.pop_back();
    }
  }
  long end = -1;
  length = 0;
  for (size_t e = 0; e < n; ++e)
    if (best[e] > length) {
      length = best[e];
      end = static_cast<long>(e);
    }
  std::vector<size_t> chain;
  for (long e = end; e >= 0; e = pred[e])
    if (unit[e] >= 0 && weight[e] > 0) chain.push_back(static_cast<size_t>(unit[e]));
  std::reverse(chain.begin(), chain.end());
  return chain;
}

// Without the graph: the longest chain of jobs that ran one after another. It bounds the true
// critical path from above (every dependency chain is such a chain), so it is marked as such.
std::vector<size_t> chain_critical_path(const std::vector<Unit>& units, long& length) {
  std::vector<size_t> order(units.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return units[a].end_ms < units[b].end_ms; });
  std::vector<long> ends, dp(order.size()), best_upto(order.size());
  std::vector<long> pred(order.size(), -1), best_idx(order.size());
  for (size_t k = 0; k < order.size(); ++k) {
    const Unit& u = units[order[k]];
    // The last job (by end) that ended at or before this one started.
    long j = static_cast<long>(std::upper_bound(ends.begin(), ends.end(), u.start_ms) - ends.begin()) - 1;
    const long before = j >= 0 ? best_upto[j] : 0;
    dp[k] = u.duration_ms() - u.waited_ms + before;
    pred[k] = j >= 0 ? best_idx[j] : -1;
    ends.push_back(u.end_ms);
    if (k == 0 || dp[k] > best_upto[k - 1]) {
      best_upto[k] = dp[k];
      best_idx[k] = static_cast<long>(k);
    } else {
      best_upto[k] = best_upto[k - 1];
      best_idx[k] = best_idx[k - 1];
    }
  }
  length = order.empty() ? 0 : best_upto.back();
  std::vector<size_t> chain;
  for (long k = order.empty() ? -1 : best_idx.back(); k >= 0; k = pred[k]) chain.push_back(order[k]);
  std::reverse(chain.begin(), chain.end());
  return chain;
}

}  // namespace

double Unit::device_ms() const {
  double d = 0;
  for (const auto& [a, ph] : phases.archs) d += ph.device_ms + ph.ptxas_ms;
  return d;
}

long Unit::ideal_ms(int cores) const {
  const long wall = std::max(0L, duration_ms() - waited_ms);
  const double d = device_ms();
  if (d <= 0) return wall;
  // The device phases as they ran: summed over architectures, which ran `threads` at a time, each
  // already split `split` ways. Their work on one thread is at most d x split (nvcc's split is far
  // from linear: cicc ran 2.2x faster on 14 threads on the H100), so on every core they take at least
  // d x split / cores, and never more than they took. The rest of the wall stays serial.
  const double as_ran = d / std::max(1, threads);
  const double ideal_device = std::min(as_ran, d * std::max(1, split) / std::max(1, cores));
  const double serial = std::max(0.0, static_cast<double>(wall) - as_ran);
  return static_cast<long>(std::min<double>(wall, serial + ideal_device));
}

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
  return r + fmt::format("; with its device phases ({}) on all cores the critical path would be {} instead of {}",
                         core::duration_text(static_cast<long>(u.device_ms())),
                         core::duration_text(p.split_critical_path_ms), core::duration_text(p.critical_path_ms));
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

std::vector<size_t> slowest(const Profile& p, size_t n) {
  std::vector<size_t> idx(p.units.size());
  for (size_t i = 0; i < idx.size(); ++i) idx[i] = i;
  std::stable_sort(idx.begin(), idx.end(),
                   [&](size_t a, size_t b) { return p.units[a].duration_ms() > p.units[b].duration_ms(); });
  if (idx.size() > n) idx.resize(n);
  return idx;
}

namespace {

using UnitOf = std::map<std::string, size_t>;

// One unit per job of the latest build in .ninja_log, indexed by each of its outputs.
void units_from_log(const ProfileInput& in, Profile& p, UnitOf& unit_of) {
  for (const auto& j : in.log.jobs) {
    Unit u;
    u.name = j.name();
    u.outputs = j.outputs;
    u.start_ms = j.start_ms;
    u.end_ms = j.end_ms;
    for (const auto& o : j.outputs) unit_of[o] = p.units.size();
    p.units.push_back(std::move(u));
  }
}

// The launcher's records: the last one per output (earlier builds appended theirs too).
void attach_exec_records(const ProfileInput& in, Profile& p, const UnitOf& unit_of) {
  if (!in.exec) return;
  p.exec_problems = in.exec->problems;
  std::map<size_t, const ExecRecord*> rec;
  const std::string prefix = in.build_dir + "/";
  for (const auto& r : in.exec->records) {
    // Ninja names outputs as its build file does: relative to the build folder (CMake) or
    // absolute (torch.utils.cpp_extension); the launcher records them as the compiler saw them.
    auto it = unit_of.find(r.output);
    if (it == unit_of.end() && !in.build_dir.empty() && r.output.rfind(prefix, 0) == 0)
      it = unit_of.find(r.output.substr(prefix.size()));
    if (it == unit_of.end() && !in.build_dir.empty() && !r.output.empty() && r.output[0] != '/')
      it = unit_of.find(prefix + r.output);
    if (it != unit_of.end()) rec[it->second] = &r;
  }
  for (const auto& [i, r] : rec) {
    Unit& u = p.units[i];
    u.cpu_ms = r->cpu_ms;
    u.peak_rss_kib = r->peak_rss_kib;
    u.waited_ms = std::min(r->waited_ms, u.duration_ms());
    u.run_ms = r->wall_ms > 0 ? std::min(r->wall_ms, u.duration_ms()) : -1;
    u.archs = r->archs;
    u.source = r->source;
    u.phases = r->phases;
    u.split = r->split;
    u.threads = r->threads;
    u.cores = r->cores;
    u.grant = r->grant;
    u.grant_basis = r->grant_basis;
    u.grant_share = r->grant_share;
    u.grant_units = r->grant_units;
    u.nice = r->nice;
    u.node = r->node;
  }
  p.exec_matched = static_cast<int>(rec.size());
}

// Each unit's kind and target, and its source file from the graph when the launcher did not say.
void classify_units(const ProfileInput& in, Profile& p) {
  for (auto& u : p.units) {
    std::string rule;
    if (in.graph)
      if (auto it = in.graph->producer.find(u.name); it != in.graph->producer.end()) {
        const auto& e = in.graph->edges[it->second];
        rule = e.rule;
        if (u.source.empty())
          for (const auto& i : e.inputs)
            if (core::ends_with(i, ".cu") || core::ends_with(i, ".cpp") || core::ends_with(i, ".cc") ||
                core::ends_with(i, ".c") || core::ends_with(i, ".cxx")) {
              u.source = i;
              break;
            }
      }
    u.kind = kind_of(u, rule);
    u.target = target_of(u.name);
  }
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

// Time per architecture: measured by nvcc --time when the build wrote it; else the exec log's
// arch count splits a unit evenly (an estimate); else it cannot be told.
void arch_times(const ProfileInput& in, Profile& p) {
  {
    std::map<int, ArchTime> by_arch;
    for (auto& u : p.units) {
      if (u.phases.archs.empty()) continue;
      u.arch_ms.clear();
      for (const auto& [a, ph] : u.phases.archs) {
        u.arch_ms[a] = ph.device_ms + ph.ptxas_ms;
        auto& at = by_arch[a];
        at.arch = a;
        at.ms += ph.device_ms + ph.ptxas_ms;
        ++at.units;
      }
      u.host_ms = u.phases.front_end_ms + u.phases.host_ms + u.phases.link_ms + u.phases.other_ms;
    }
    for (auto& [k, a] : by_arch) p.arch_times.push_back(a);
    if (!p.arch_times.empty()) p.arch_method = "nvcc --time, recorded per unit by kiln exec";
  }
  if (p.arch_times.empty() && in.nvcc && !in.nvcc->units.empty()) {
    std::map<int, ArchTime> by_arch;
    // Only compiles of this build count: the file also holds CMake's compiler checks and older builds.
    for (const auto& nu : in.nvcc->units) {
      bool matched = false;
      for (auto& u : p.units) {
        const bool same_source = !u.source.empty() && same_file(u.source, nu.source, in.build_dir);
        const bool same_name = u.source.empty() && (core::ends_with(u.name, "/" + core::base_name(nu.source) + ".o") ||
                                                    core::base_name(u.name) == core::base_name(nu.source) + ".o");
        if (u.kind == UnitKind::cuda && (same_source || same_name)) {
          u.arch_ms = nu.device_ms;
          u.host_ms = nu.host_ms;
          if (u.source.empty()) u.source = nu.source;
          matched = true;
        }
      }
      if (!matched) continue;
      for (const auto& [arch, ms] : nu.device_ms) {
        auto& a = by_arch[arch];
        a.arch = arch;
        a.ms += ms;
        ++a.units;
      }
    }
    for (auto& [k, a] : by_arch) p.arch_times.push_back(a);
    if (p.arch_times.empty())
      p.notes.push_back("kiln-nvcc-time.csv names no CUDA unit of this build");
    else
      p.arch_method = "nvcc --time";
  }
  if (p.arch_times.empty()) {
    bool any = false;
    for (auto& u : p.units)
      if (u.archs > 0) {
        any = true;
        u.per_arch_estimate_ms = static_cast<double>(u.duration_ms() - u.waited_ms) / u.archs;
      }
    if (any) {
      p.arch_method =
          "even split of each CUDA unit's time over its archs (an estimate: which arch costs more cannot be told)";
    } else {
      bool cuda = std::any_of(p.units.begin(), p.units.end(), [](const Unit& u) { return u.kind == UnitKind::cuda; });
      if (cuda)
        p.notes.push_back(
            fmt::format("time per architecture cannot be told from .ninja_log; rebuild with "
                        "-D CMAKE_CUDA_FLAGS=--time={}/kiln-nvcc-time.csv to have nvcc measure it",
                        in.build_dir.empty() ? "BUILD" : in.build_dir));
    }
  }
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

  UnitOf unit_of;
  units_from_log(in, p, unit_of);
  attach_exec_records(in, p, unit_of);
  classify_units(in, p);
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
