#pragma once
// kiln build --slurm: how many CPUs one unit's job step asks of the allocation.
// Slurm reserves a step's CPUs: a step whose CPUs are not free waits in srun while Ninja counts it
// as running. On the GPU host (issue 35), flash-attention's 16 units on 2 nodes of 8 CPUs asked the
// threads of their grants (4-5 each, 64 in all, as the thread grants share a machine's cores by
// time), so about four units ran at a time: 929 s against 407 s on the host alone. So a unit asks
// its grant's weight only out of CPUs no other unit needs: the allocation's CPUs, less those this
// build's running steps asked, less one for each unit Ninja may start beside it (within each
// Ninja's -j: a user's -j 4 on 16 CPUs leaves the other 12 to the four). Its threads beyond that share the node's CPUs,
// as they share a machine's cores without Slurm (a site that binds tasks to CPUs confines them instead).
#include <optional>

namespace kiln::launch {

struct StepRoom {
  int alloc_cpus = 0;         // the allocation's CPUs on live nodes; 0: unknown
  int asked_by_running = 0;   // CPUs this build's running steps asked
  int running_steps = 0;      // how many there are
  std::optional<int> beside;  // units that may start beside it now (unit plan, each Ninja's -j); nullopt: unknown
  int node_cpus = 0;          // the smallest node's CPUs; 0: unknown
};

// `weight`: the CPUs the unit's thread grant weighs (its cores, or rule 6b's own threads).
int step_cpus(int weight, const StepRoom& room);

}  // namespace kiln::launch
