#pragma once
// How much work a compile unit is, for sharing the cores among the units that run at once
// (launch/thread_grant): the best figure available for each, on one scale.
//   - learned: the CPU time of its last real compile (this build folder, or any checkout of the
//     project through the portable key);
//   - estimated, before it ever compiled (launch/unit_estimate): the headers it includes and the
//     kernels it instantiates, in seconds of CPU on the GPU host (data/unit_cost.toml);
//   - neither: the mean of the others (equal weight when nothing is known).
// Learned and estimated units side by side are put on one scale by the units that have both.
#include <optional>
#include <string>
#include <vector>

#include "io/fs.hpp"
#include "launch/unit_estimate.hpp"

namespace kiln::launch {

struct UnitWork {
  double estimate = 0;         // estimate_work's figure; 0: unknown
  std::optional<long> cpu_ms;  // learned CPU time of a real compile
  bool host = false;           // a host compile: one thread, whatever its share
};

struct Weights {
  std::vector<double> w;  // one per unit, same order
  std::string basis;      // "learned CPU time", "estimate", "learned and estimated", "equal"
};

Weights unit_weights(const std::vector<UnitWork>& units);

// estimate_unit's seconds; 0 when the source cannot be read.
double estimate_work(const io::Filesystem& fs, const std::string& source, int device_targets);

}  // namespace kiln::launch
