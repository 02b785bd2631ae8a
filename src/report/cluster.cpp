#include "report/cluster.hpp"

#include <algorithm>
#include <climits>
#include <cmath>
#include <fmt/format.h>
#include <map>
#include <set>

#include "core/text.hpp"
#include "core/size_text.hpp"
#include "probe/build_memory.hpp"
#include "report/render.hpp"

namespace kiln::report {
namespace {

bool on_any_node(const Unit& u) { return u.kind == UnitKind::cuda || u.kind == UnitKind::cxx; }

// What a unit needs where nothing was recorded: the sizing table's default for its kind.
std::uint64_t unit_kib(const Unit& u) {
  if (u.peak_rss_kib > 0) return static_cast<std::uint64_t>(u.peak_rss_kib);
  const double gib = u.kind == UnitKind::cuda ? probe::gib_per_job(probe::JobKind::cuda, std::max(1, u.archs))
                                              : probe::gib_per_job(probe::JobKind::cxx, 0);
  return static_cast<std::uint64_t>(gib * 1024 * 1024);
}

// What the replay needs of each step: its CPU work (ms), the step start it waits first (ms, no
// core), its threads, its peak memory, the steps after it and how many it still waits for.
struct Steps {
  std::vector<double> work, delay;
  std::vector<int> cores;
  std::vector<std::uint64_t> kib;
  std::vector<std::vector<size_t>> next;
  std::vector<int> waiting;
};

// The recorded steps replayed on the shape; returns when the last one ends (ms).
double replay(const std::vector<const Unit*>& units, Steps st, const ClusterShape& shape) {
  const size_t n = units.size();
  const auto& cores = st.cores;
  const auto& kib = st.kib;
  const long total_cores = static_cast<long>(shape.nodes) * shape.cores;
  // The steps share each node's cores, as kiln exec's thread grants share one host's (a --slurm
  // step asks one CPU unless CPUs are left over, launch/step_cpus): a node runs up to one unit per
  // core, and while the running units' threads outnumber its cores each gets the cores in
  // proportion to its threads, else all its threads. Reserving each compile's granted cores
  // instead left flash-attention's 4-thread compiles waiting: 365 s projected against 301 s real.
  // Among ready units the one the build started first goes first: Ninja and kiln's unit order
  // decide that on the cluster too, and they knew no durations (flash-attention's 16-core record
  // replayed longest-first projects 300 s of compiles for the 330 s its own order took).
  std::set<size_t> ready;
  for (size_t i = 0; i < n; ++i)
    if (!st.waiting[i]) ready.insert(i);
  const auto nodes = static_cast<size_t>(shape.nodes);
  std::vector<int> slots(nodes, shape.cores);
  std::vector<long> threads(nodes, 0);
  std::vector<std::uint64_t> free_kib(nodes, shape.mem_kib);
  struct Running {
    size_t unit;
    size_t node;
    double delay, work;  // ms of step start still to wait, CPU ms still to do
  };
  std::vector<Running> running;
  double now = 0;
  size_t done = 0;
  constexpr double kDone = 1e-6;
  while (done < n) {
    for (auto it = ready.begin(); it != ready.end() && static_cast<long>(running.size()) < total_cores;) {
      const size_t u = *it;
      size_t best = nodes;
      const size_t last = on_any_node(*units[u]) ? nodes : 1;  // node 0 is the head node
      for (size_t nd = 0; nd < last; ++nd)
        if (slots[nd] > 0 && free_kib[nd] >= kib[u] && (best == nodes || threads[nd] < threads[best])) best = nd;
      if (best == nodes && running.empty()) best = 0;  // larger than any free node and nothing to wait for
      if (best == nodes) {
        ++it;
        continue;
      }
      --slots[best];
      threads[best] += cores[u];
      free_kib[best] -= std::min(free_kib[best], kib[u]);
      running.push_back({u, best, st.delay[u], st.work[u]});
      it = ready.erase(it);
    }
    if (running.empty()) break;           // a cycle in the recorded dependencies: nothing can start
    std::vector<long> working(nodes, 0);  // threads past their step's start, per node
    for (const auto& r : running)
      if (r.delay <= kDone) working[r.node] += cores[r.unit];
    auto rate = [&](const Running& r) {
      if (r.delay > kDone) return 0.0;
      const double share = std::min(1.0, static_cast<double>(shape.cores) / static_cast<double>(working[r.node]));
      return cores[r.unit] * share;  // CPU ms per ms
    };
    double step = -1;
    for (const auto& r : running) {
      const double left = r.delay > kDone ? r.delay : r.work / rate(r);
      if (step < 0 || left < step) step = left;
    }
    now += step;
    for (auto& r : running) {
      if (r.delay > kDone)
        r.delay -= step;
      else
        r.work -= rate(r) * step;
    }
    for (auto it = running.begin(); it != running.end();) {
      if (it->delay > kDone || it->work > kDone) {
        ++it;
        continue;
      }
      ++slots[it->node];
      threads[it->node] -= cores[it->unit];
      free_kib[it->node] = std::min(shape.mem_kib, free_kib[it->node] + kib[it->unit]);
      ++done;
      for (size_t s : st.next[it->unit])
        if (--st.waiting[s] == 0) ready.insert(s);
      it = running.erase(it);
    }
  }
  return now;
}

}  // namespace

long run_time(const Unit& u, int cores) {
  long wall = std::max<long>(0, u.duration_ms() - u.waited_ms);
  if (u.run_ms >= 0) wall = std::min(wall, u.run_ms);
  // Measured beside other compiles on shared cores, a unit's wall time is stretched (one 2-core
  // node running four: 2m04s projected against 63 s real); its CPU time over its cores is not.
  const long had = std::max(1, u.cores), gets = cores > 0 ? std::min<long>(cores, had) : had;
  long work = wall * had;
  if (u.cpu_ms >= 0) work = std::min(work, u.cpu_ms);
  return work / gets;
}

ClusterUse cluster_use(const Profile& p, int buckets) {
  ClusterUse use;
  use.cpus = p.cores;
  std::map<std::string, NodeLane> by;
  const long span = std::max<long>(1, p.makespan_ms);
  const long t0 = p.units.empty() ? 0 : p.units.front().start_ms;
  long busy = 0;
  for (const auto& u : p.units) {
    if (u.node.empty()) continue;
    auto& lane = by[u.node];
    lane.node = u.node;
    lane.activity.resize(static_cast<size_t>(buckets));
    ++lane.units;
    // A step queued in Slurm (waited_ms) did not run on the node yet, nor did an attempt lost on
    // another node: the lane has the finishing attempt's run time only.
    long ran_from = std::min(u.end_ms, u.start_ms + u.waited_ms);
    if (u.run_ms >= 0) ran_from = std::max(ran_from, u.end_ms - u.run_ms);
    lane.busy_ms += (u.end_ms - ran_from) * std::max(1, u.cores);
    const int b0 = static_cast<int>((ran_from - t0) * buckets / span),
              b1 = static_cast<int>((u.end_ms - t0) * buckets / span);
    for (int b = std::max(0, b0); b <= std::min(buckets - 1, b1); ++b) ++lane.activity[static_cast<size_t>(b)];
  }
  for (auto& [n, lane] : by) {
    busy += lane.busy_ms;
    use.lanes.push_back(std::move(lane));
  }
  if (use.cpus > 0) use.busy = std::min(1.0, static_cast<double>(busy) / (static_cast<double>(span) * use.cpus));
  return use;
}

std::string ClusterShape::text() const {
  return spelled.empty() ? fmt::format("{}x{}x{:.0f}G", nodes, cores, mem_kib / 1048576.0) : spelled;
}

std::optional<ClusterShape> parse_shape(const std::string& text) {
  const auto x1 = text.find('x'), x2 = text.find('x', x1 == std::string::npos ? x1 : x1 + 1);
  if (x1 == std::string::npos || x2 == std::string::npos) return std::nullopt;
  ClusterShape s;
  const auto nodes = core::parse_int(text.substr(0, x1)), cores = core::parse_int(text.substr(x1 + 1, x2 - x1 - 1));
  if (!nodes || !cores || *nodes > INT_MAX || *cores > INT_MAX || *nodes < INT_MIN || *cores < INT_MIN)
    return std::nullopt;
  s.nodes = static_cast<int>(*nodes);
  s.cores = static_cast<int>(*cores);
  // Memory per node counts in 1024s, as Slurm counts it; a bare number is G.
  auto bytes = core::parse_size_bytes(text.substr(x2 + 1), core::SizeBase::binary, 1ull << 30);
  if (!bytes || *bytes == 0 || s.nodes < 1 || s.cores < 1 || s.nodes > 100000 || s.cores > 100000) return std::nullopt;
  s.mem_kib = *bytes / 1024;
  s.spelled = text;
  return s;
}

std::vector<std::vector<size_t>> unit_dependencies(const Profile& p, const BuildGraph& g) {
  std::map<std::string, size_t> unit_of;
  for (size_t i = 0; i < p.units.size(); ++i)
    for (const auto& o : p.units[i].outputs.empty() ? std::vector<std::string>{p.units[i].name} : p.units[i].outputs)
      unit_of[o] = i;
  std::vector<std::vector<size_t>> deps(p.units.size());
  for (size_t i = 0; i < p.units.size(); ++i) {
    auto it = g.producer.find(p.units[i].name);
    if (it == g.producer.end()) continue;
    std::set<size_t> found, seen_edges{it->second};
    std::vector<size_t> stack{it->second};
    while (!stack.empty()) {
      const auto& e = g.edges[stack.back()];
      stack.pop_back();
      for (const auto& in : e.inputs) {
        if (auto u = unit_of.find(in); u != unit_of.end()) {
          if (u->second != i) found.insert(u->second);
        } else if (auto pe = g.producer.find(in); pe != g.producer.end() && seen_edges.insert(pe->second).second) {
          stack.push_back(pe->second);  // a phony or up-to-date edge: what it stands for
        }
      }
    }
    deps[i].assign(found.begin(), found.end());
  }
  return deps;
}

Projection simulate(const Profile& p, const std::vector<std::vector<size_t>>& deps, const ClusterShape& shape,
                    long step_overhead_ms, const OutsideNinja& outside) {
  Projection pr;
  pr.shape = shape;
  // Ninja's units, then the links outside Ninja, each after the units it needs.
  std::vector<const Unit*> units;
  for (const auto& u : p.units) units.push_back(&u);
  for (const auto& u : outside.links) units.push_back(&u);
  std::map<std::string, size_t> index;
  for (size_t i = 0; i < p.units.size(); ++i) index.emplace(p.units[i].name, i);
  const size_t n = units.size();
  std::vector<long> dur(n);
  Steps st{std::vector<double>(n),
           std::vector<double>(n),
           std::vector<int>(n),
           std::vector<std::uint64_t>(n),
           std::vector<std::vector<size_t>>(n),
           std::vector<int>(n, 0)};
  long cpu = 0, head = 0;
  for (size_t i = 0; i < n; ++i) {
    const auto& u = *units[i];
    const bool remote = on_any_node(u);
    const int cores = st.cores[i] = std::min(std::max(1, u.cores), shape.cores);
    const long run = run_time(u, cores), delay = remote ? step_overhead_ms : 0;
    st.work[i] = static_cast<double>(run) * cores;
    st.delay[i] = static_cast<double>(delay);
    dur[i] = run + delay;
    st.kib[i] = unit_kib(u);
    if (st.kib[i] > shape.mem_kib) ++pr.oversized, st.kib[i] = shape.mem_kib;
    (remote ? pr.remote_units : pr.head_units)++;
    cpu += dur[i] * cores;
    if (!remote) head += dur[i] * cores;
    std::vector<size_t> needs = i < deps.size() && i < p.units.size() ? deps[i] : std::vector<size_t>{};
    if (i >= p.units.size()) {
      const size_t k = i - p.units.size();
      for (const auto& name : k < outside.needs.size() ? outside.needs[k] : std::vector<std::string>{})
        if (auto it = index.find(name); it != index.end()) needs.push_back(it->second);
      pr.links_ms += dur[i];
    }
    for (size_t d : needs)
      if (d < n && d != i) st.next[d].push_back(i), ++st.waiting[i];
  }
  pr.links = static_cast<int>(outside.links.size());
  // The critical path: the longest path from a unit to the end of the build, each step alone on
  // its cores. Units are in start order, so a dependency started before its dependents: walk backwards.
  std::vector<long> level(n, 0);
  std::vector<size_t> after(n, n);  // the successor on the longest path
  for (size_t k = n; k-- > 0;) {
    long tail = 0;
    for (size_t s : st.next[k])
      if (level[s] > tail) tail = level[s], after[k] = s;
    level[k] = dur[k] + tail;
  }
  size_t first = n;
  for (size_t i = 0; i < n; ++i)
    if (first == n || level[i] > level[first]) first = i;
  if (first < n) pr.critical_path_ms = level[first];
  for (size_t k = first; k < n; k = after[k])
    if (units[k]->kind == UnitKind::link) pr.critical_links_ms += dur[k];
  const long total_cores = static_cast<long>(shape.nodes) * shape.cores;
  pr.cpu_bound_ms = cpu / std::max<long>(1, total_cores);
  pr.head_bound_ms = head / std::max(1, shape.cores);

  const double end = replay(units, std::move(st), shape);
  // The head node's serial time runs beside nothing: every figure has it whole.
  pr.serial_ms = outside.serial_ms;
  pr.left_out = outside.left_out;
  pr.makespan_ms = std::lround(end) + pr.serial_ms;
  pr.critical_path_ms += pr.serial_ms;
  pr.cpu_bound_ms += pr.serial_ms;
  pr.head_bound_ms += pr.serial_ms;
  const long bound = std::max({pr.critical_path_ms, pr.cpu_bound_ms, pr.head_bound_ms});
  pr.limit = bound == pr.critical_path_ms ? "critical path"
             : bound == pr.head_bound_ms  ? "head node (links and other steps)"
                                          : "CPUs";
  return pr;
}

namespace {

// What the projection has beside Ninja's steps, and what it cannot have.
std::string includes_text(const Projection& p) {
  std::string o = "  includes Ninja's steps";
  if (p.links)
    o +=
        fmt::format(", {} setuptools link{} ({}, on the head node after {} compiles)", p.links, p.links == 1 ? "" : "s",
                    human_ms(p.links_ms), p.links == 1 ? "its extension's" : "their extensions'");
  if (p.serial_ms > 0)
    o += fmt::format(
        ", {} on the head node alone (before the first compile: Python, setup.py, import torch; after "
        "the last step: the wheel, pip install)",
        human_ms(p.serial_ms));
  o += "\n";
  for (const auto& l : p.left_out) o += "  left out " + l + "\n";
  return o;
}

}  // namespace

std::string render_cluster_text(const ClusterUse& use, const std::vector<Projection>& projections) {
  std::string o;
  if (!use.lanes.empty()) {
    o += fmt::format("\nnodes      {} (kiln build --slurm); the allocation's {} CPUs were {:.0f}% busy\n",
                     use.lanes.size(), use.cpus, 100 * use.busy);
    for (const auto& l : use.lanes) {
      std::string bar;
      for (int a : l.activity) bar += a == 0 ? '.' : a < 10 ? static_cast<char>('0' + a) : '#';
      o += fmt::format("  {:<10} |{}| {} unit{}, {} busy\n", l.node, bar, l.units, l.units == 1 ? "" : "s",
                       human_ms(l.busy_ms));
    }
  }
  if (!projections.empty()) {
    o += "\nprojected  on a cluster of NODESxCORESxMEM (compiles on any node, links on the head node)\n";
    o += fmt::format("  {:<14} {:>9}  {:>9} {:>9} {:>9}  {}\n", "shape", "wall", "critical", "CPUs", "head", "limit");
    for (const auto& p : projections)
      o += fmt::format("  {:<14} {:>9}  {:>9} {:>9} {:>9}  {}{}{}\n", p.shape.text(), human_ms(p.makespan_ms),
                       human_ms(p.critical_path_ms), human_ms(p.cpu_bound_ms), human_ms(p.head_bound_ms), p.limit,
                       p.limit == "critical path" && p.critical_links_ms > 0
                           ? fmt::format(" (link steps {} of it)", human_ms(p.critical_links_ms))
                           : "",
                       p.oversized ? fmt::format(" ({} unit(s) peak above a node's memory)", p.oversized) : "");
    o += "  (wall: the projection; critical, CPUs, head: the lower bounds it cannot beat)\n";
    o += includes_text(projections.front());
  }
  return o;
}

nlohmann::ordered_json cluster_json(const ClusterUse& use, const std::vector<Projection>& projections) {
  nlohmann::ordered_json j = nlohmann::ordered_json::object();
  if (!use.lanes.empty()) {
    auto lanes = nlohmann::ordered_json::array();
    for (const auto& l : use.lanes)
      lanes.push_back({{"node", l.node}, {"units", l.units}, {"busy_s", l.busy_ms / 1000.0}});
    j["nodes"] = {{"cpus", use.cpus}, {"busy", use.busy}, {"lanes", lanes}};
  }
  if (!projections.empty()) {
    auto arr = nlohmann::ordered_json::array();
    for (const auto& p : projections)
      arr.push_back({{"shape", p.shape.text()},
                     {"nodes", p.shape.nodes},
                     {"cores", p.shape.cores},
                     {"mem_bytes", p.shape.mem_kib * 1024},
                     {"wall_s", p.makespan_ms / 1000.0},
                     {"critical_path_s", p.critical_path_ms / 1000.0},
                     {"critical_links_s", p.critical_links_ms / 1000.0},
                     {"cpu_bound_s", p.cpu_bound_ms / 1000.0},
                     {"head_bound_s", p.head_bound_ms / 1000.0},
                     {"limit", p.limit},
                     {"remote_units", p.remote_units},
                     {"head_units", p.head_units},
                     {"oversized_units", p.oversized},
                     {"links", p.links},
                     {"links_s", p.links_ms / 1000.0},
                     {"serial_s", p.serial_ms / 1000.0},
                     {"left_out", p.left_out}});
    j["simulate"] = arr;
  }
  return j;
}

}  // namespace kiln::report
