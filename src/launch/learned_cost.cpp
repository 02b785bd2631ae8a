#include "launch/learned_cost.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <sstream>

#include "core/fnv.hpp"

namespace kiln::launch {

std::string history_key(const std::string& output) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(core::fnv1a64(output)));
  return buf;
}

std::string portable_unit_id(const io::Filesystem& fs, const std::string& project_dir, const std::string& output,
                             const std::string& source) {
  if (project_dir.empty() || output.empty() || source.empty()) return "";
  auto text = fs.read(source.front() == '/' ? source : project_dir + "/" + source);
  if (!text) return "";
  const std::string prefix = project_dir + "/";
  const std::string rel = output.rfind(prefix, 0) == 0 ? output.substr(prefix.size()) : output;
  return rel + "\n" + history_key(*text);
}

std::optional<UnitHistory> read_history(const io::Filesystem& fs, const std::string& history_dir,
                                        const std::string& output) {
  if (history_dir.empty() || output.empty()) return std::nullopt;
  auto text = fs.read(history_dir + "/" + history_key(output));
  if (!text) return std::nullopt;
  std::istringstream in(*text);
  UnitHistory h;
  long long peak = -1;
  if (!(in >> peak) || peak < 0) return std::nullopt;
  h.peak_kib = static_cast<std::uint64_t>(peak);
  long long cpu = -1, wall = -1;
  int cores = 1;
  if (in >> cpu >> wall >> cores) {
    h.cpu_ms = cpu >= 0 ? static_cast<long>(cpu) : -1;
    h.wall_ms = wall >= 0 ? static_cast<long>(wall) : -1;
    h.cores = std::max(1, cores);
  }
  return h;
}

std::string format_history(const UnitHistory& h) {
  return fmt::format("{} {} {} {}\n", h.peak_kib, h.cpu_ms, h.wall_ms, h.cores);
}

HistoryPlaces HistoryPlaces::from_env(const core::LauncherEnv& kiln) {
  return {kiln.mem_history, kiln.unit_history, kiln.project_dir};
}

HistoryPlaces HistoryPlaces::from_env(const io::Environment& env) { return from_env(core::LauncherEnv::from_env(env)); }

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
