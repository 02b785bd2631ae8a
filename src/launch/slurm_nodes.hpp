#pragma once
// Which nodes of a Slurm allocation are dead, as sinfo says: the watchdog of kiln build --slurm
// (launch/slurm_step) asks when a step did not start in time or was lost, so a unit is retried on
// the nodes left (--exclude, and --overlap where Slurm holds the job's cores) or the build stops
// naming the node, instead of srun waiting on a node that will not come back. A dead node is
// noted for every launcher of the build, which then stop offering its CPUs.
#include <string>
#include <utility>
#include <vector>

#include "io/seams.hpp"

namespace kiln::launch {

// sinfo's compact state (%t: "idle", "alloc*", "down*", "mix~"...) of a node no step should be
// sent to: down, failed, or unknown, or not responding ('*') or powered off ('~') whatever else
// it says. A draining node still runs the job's steps: not dead.
bool node_state_dead(const std::string& compact_state);

struct NodeHealth {
  std::vector<std::pair<std::string, std::string>> dead;  // node, sinfo's state
  std::vector<std::string> left;                          // the allocation's other nodes
  bool known = false;                                     // sinfo answered
  std::vector<std::string> dead_names() const;
  std::string dead_text() const;  // "n2 (down*), n3 (idle*)"
};

// `sinfo -h -N -n NODES -o "%N %t"` for the allocation's nodes (listed by kiln build); unknown
// (nothing dead) when the list is empty or sinfo does not answer.
NodeHealth allocation_health(const std::string& sinfo, const std::vector<std::string>& nodes, io::Seams& s);

// What one launcher's watchdog found is every launcher's: a file per dead node in the build's step
// reports folder (REPORTS/dead-NODE, its sinfo state inside), so the launchers still to ask for a
// step stop offering that node's cores (launch/exec_launcher: a Slurm unit waits for the CPUs left).
void note_dead_nodes(io::Filesystem& fs, const std::string& reports, const NodeHealth& h);
std::vector<std::string> noted_dead_nodes(const io::Filesystem& fs, const std::string& reports);

// KILN_SLURM_NODES: "n1:32,n2:32" (a node's CPUs in the allocation after the colon; a node the job
// had lost when the build began has none). Nodes in order, CPUs 0 where not given.
std::vector<std::pair<std::string, int>> parse_slurm_nodes(const std::string& text);

}  // namespace kiln::launch
