#pragma once
// A build on a Slurm allocation seen per node (one lane each, how busy the allocation was), and
// a recorded build projected onto a cluster shape (NODESxCORESxMEM): the recorded units replayed in
// their order, after their dependencies (Ninja's graph), each node's cores shared by the threads of
// the steps on it, with their CPU time, peaks and cores. Compiles may
// run on any node (kiln build --slurm makes them job steps); links and every other step run on
// the head node, where Ninja runs, and so do a torch extension's steps outside Ninja. The projection names the limit it
// hits: the critical path, the CPUs, or the head node's own steps.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "report/ninja_graph.hpp"
#include "report/outside_ninja.hpp"
#include "report/profile.hpp"

namespace kiln::report {

struct NodeLane {
  std::string node;
  int units = 0;
  long busy_ms = 0;           // sum of its units' run times (queued time excluded) times their cores
  std::vector<int> activity;  // units running on it, per time bucket of the build
};
struct ClusterUse {
  std::vector<NodeLane> lanes;  // empty: no unit recorded a node
  int cpus = 0;                 // the allocation's, as the build recorded them
  double busy = 0;              // busy core-time / (wall x CPUs), 0..1
};
ClusterUse cluster_use(const Profile& p, int buckets = 60);

// What --simulate replays for a unit: its recorded run time (less time queued, and the lost
// attempts of a Slurm step), but no more than its CPU time over its granted cores, so a unit
// slowed by contention on the recorded machine is not slower in the projection. `cores`: what the
// projection grants it, when a node has fewer than it was granted (0: as recorded): the same work
// (run time x recorded cores, at most its CPU time) over fewer cores takes longer.
long run_time(const Unit& u, int cores = 0);

struct ClusterShape {
  int nodes = 1, cores = 1;
  std::uint64_t mem_kib = 0;
  std::string spelled;  // as given
  std::string text() const;
};
// "4x32x256G" (nodes x cores per node x memory per node, K/M/G/T powers of 1024 as Slurm counts, a
// bare number G); nullopt when malformed.
std::optional<ClusterShape> parse_shape(const std::string& text);

struct Projection {
  ClusterShape shape;
  long makespan_ms = 0;
  long critical_path_ms = 0, cpu_bound_ms = 0, head_bound_ms = 0;
  long critical_links_ms = 0;  // of the critical path, the link steps (head node, no faster with nodes)
  std::string limit;           // "critical path", "CPUs" or "head node (links and other steps)"
  int remote_units = 0, head_units = 0;
  int oversized = 0;  // units whose peak exceeds a node's memory (run alone on one)
  // What it includes beside Ninja's steps (report/outside_ninja): a torch extension's setuptools
  // links (on the head node, after their extension's compiles) and its serial head-node time
  // (before the first compile, after the last step), in every figure above; what it cannot.
  int links = 0;
  long links_ms = 0, serial_ms = 0;
  std::vector<std::string> left_out;
};
// Each unit's prerequisites among the build's units, through the graph (phony edges crossed).
std::vector<std::vector<size_t>> unit_dependencies(const Profile& p, const BuildGraph& g);
// step_overhead_ms: what starting a job step costs each compile (srun), added to its duration.
Projection simulate(const Profile& p, const std::vector<std::vector<size_t>>& deps, const ClusterShape& shape,
                    long step_overhead_ms, const OutsideNinja& outside = {});

std::string render_cluster_text(const ClusterUse& use, const std::vector<Projection>& projections);
nlohmann::ordered_json cluster_json(const ClusterUse& use, const std::vector<Projection>& projections);

}  // namespace kiln::report
