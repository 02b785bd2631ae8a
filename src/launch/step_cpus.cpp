#include "launch/step_cpus.hpp"

#include <algorithm>

namespace kiln::launch {

int step_cpus(int weight, const StepRoom& room) {
  int want = std::max(1, weight);
  if (room.node_cpus > 0) want = std::min(want, room.node_cpus);
  if (room.alloc_cpus <= 0) return want;  // nothing known to share: the grant as it is
  // Units that may start beside this one, at most the slots the running steps and this one leave;
  // unknown, every slot.
  const int slots = std::max(0, room.alloc_cpus - room.running_steps - 1);
  const int others = room.beside ? std::min(std::max(0, *room.beside), slots) : slots;
  const int spare = room.alloc_cpus - room.asked_by_running - others;
  return std::clamp(spare, 1, want);
}

}  // namespace kiln::launch
