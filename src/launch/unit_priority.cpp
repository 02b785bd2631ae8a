#include "launch/unit_priority.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "core/data_toml.hpp"

namespace kiln::launch {

PriorityPolicy PriorityPolicy::from_data() {
  PriorityPolicy p;
  try {
    static const toml::table t = data::load_toml("build_jobs.toml");
    const auto s = t["priority"];
    p.step = std::max(1.01, s["step"].value_or(p.step));
    p.max_nice = static_cast<int>(std::clamp<int64_t>(s["max_nice"].value_or(int64_t{8}), 0, 19));
    p.max_nice_estimated = static_cast<int>(
        std::clamp<int64_t>(s["max_nice_estimated"].value_or(int64_t{p.max_nice_estimated}), 0, p.max_nice));
    p.serial_fraction = std::clamp(s["serial_fraction"].value_or(p.serial_fraction), 0.0, 1.0);
  } catch (...) {}
  return p;
}

int nice_levels(double ratio, const PriorityPolicy& policy) {
  return static_cast<int>(std::lround(std::log(ratio) / std::log(policy.step)));
}

double unit_duration(double work, int threads, const PriorityPolicy& policy) {
  const double t = std::max(1, threads);
  return work * (policy.serial_fraction + (1 - policy.serial_fraction) / t);
}

Priority decide_priority(const UnitWork& me, int my_threads, const std::vector<PeerUnit>& peers,
                         const PriorityPolicy& policy) {
  std::vector<UnitWork> members{me};
  std::vector<int> threads{my_threads};
  for (const auto& p : peers) members.push_back(p.work), threads.push_back(std::max(1, p.threads));
  const auto weights = unit_weights(members);
  Priority p;
  // Nothing known of this unit, or of any: every unit is alike and none is favoured.
  if (weights.basis == "equal" || (me.estimate <= 0 && !(me.cpu_ms && *me.cpu_ms > 0))) return p;
  double longest = 0;
  for (size_t i = 0; i < members.size(); ++i)
    longest = std::max(longest, unit_duration(weights.w[i], threads[i], policy));
  const double mine = unit_duration(weights.w[0], my_threads, policy);
  if (mine <= 0 || longest <= mine) {
    p.why = members.size() == 1 ? "" : "the longest of the compiles now and coming: nice 0";
    return p;
  }
  // A unit whose own work is only estimated is raised less far: an estimate can be several times
  // short (apex's fused_weight_gradient_dense_cuda.o, estimated at 3% of the work, took 66 s of CPU on
  // one thread: at nice 6 it ended 20 s after every other unit, the build's tail).
  const bool learned = me.cpu_ms && *me.cpu_ms > 0;
  p.nice = std::clamp(nice_levels(longest / mine, policy), 0, learned ? policy.max_nice : policy.max_nice_estimated);
  p.why = fmt::format("nice {}: expected {:.0f}% of the longest compile now and coming ({})", p.nice,
                      100 * mine / longest, weights.basis);
  return p;
}

int share_nice(int threads, int nice, int cores, const PriorityPolicy& policy) {
  return std::clamp(
      nice_levels(static_cast<double>(std::max(1, cores)) / std::max(1, threads), policy) + std::max(0, nice), 0, 19);
}

}  // namespace kiln::launch
