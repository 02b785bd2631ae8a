#include "launch/learned_cost.hpp"

namespace kiln::launch {

HistoryPlaces HistoryPlaces::from_env(const io::Environment& env) {
  return {env.get("KILN_MEM_HISTORY").value_or(""), env.get("KILN_UNIT_HISTORY").value_or(""),
          env.get("KILN_PROJECT_DIR").value_or("")};
}

Learned learned_cost(const io::Filesystem& fs, const HistoryPlaces& at, const std::string& output,
                     const std::string& source) {
  Learned l;
  l.history = read_history(fs, at.build_history, output);
  if (!at.units_dir.empty()) l.unit_id = portable_unit_id(fs, at.project_dir, output, source);
  if (!l.history && !l.unit_id.empty()) l.history = read_history(fs, at.units_dir, l.unit_id);
  return l;
}

std::optional<long> learned_cpu(const std::optional<UnitHistory>& h) {
  return h && h->cpu_ms > 0 ? std::optional<long>(h->cpu_ms) : std::nullopt;
}

std::map<std::string, long> learned_walls(const io::Filesystem& fs, const HistoryPlaces& at, const UnitPlan& plan) {
  std::map<std::string, long> out;
  for (const auto& u : plan.units)
    if (auto h = learned_cost(fs, at, u.output, u.source).history; h && h->wall_ms > 0) out[u.output] = h->wall_ms;
  return out;
}

}  // namespace kiln::launch
