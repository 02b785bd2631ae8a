#include <fmt/format.h>

#include "report/render.hpp"

namespace kiln::report {
namespace {

using json = nlohmann::ordered_json;

// The JSON convention (docs/cli/json.md): durations in seconds named *_s, sizes in bytes named *_bytes.
json seconds(double ms) { return ms < 0 ? json(nullptr) : json(std::round(ms) / 1000.0); }
json bytes(double kib) { return kib < 0 ? json(nullptr) : json(static_cast<std::int64_t>(std::llround(kib * 1024))); }

json series(const std::vector<Sample>& v, double scale) {
  json a = json::array();
  for (const auto& s : v) a.push_back({{"t_s", s.t_ms / 1000.0}, {"value", std::round(s.value * scale * 100) / 100}});
  return a;
}

json phases_json(const launch::NvccPhases& ph) {
  if (ph.empty()) return nullptr;
  json archs = json::object();
  for (const auto& [a, p] : ph.archs)
    archs[fmt::format("sm_{}", a)] = {{"device_s", seconds(p.device_ms)}, {"ptxas_s", seconds(p.ptxas_ms)}};
  return {{"front_end_s", seconds(ph.front_end_ms)},
          {"host_s", seconds(ph.host_ms)},
          {"link_s", seconds(ph.link_ms)},
          {"other_s", seconds(ph.other_ms)},
          {"archs", archs}};
}

json unit_json(const Unit& u) {
  json arch = json::object();
  for (const auto& [a, ms] : u.arch_ms) arch[fmt::format("sm_{}", a)] = seconds(ms);
  return {{"name", u.name},
          {"kind", to_string(u.kind)},
          {"target", u.target},
          {"source", u.source.empty() ? json(nullptr) : json(u.source)},
          {"start_s", seconds(u.start_ms)},
          {"duration_s", seconds(u.duration_ms())},
          {"cpu_s", seconds(u.cpu_ms)},
          {"peak_rss_bytes", bytes(u.peak_rss_kib)},
          {"waited_s", seconds(u.waited_ms)},
          {"archs", u.archs},
          {"arch_s", arch},
          {"critical", u.critical},
          {"threads",
           {{"split", u.split},
            {"threads", u.threads},
            {"cores", u.cores},
            {"why", u.grant.empty() ? json(nullptr) : json(u.grant)},
            {"basis", u.grant_basis.empty() ? json(nullptr) : json(u.grant_basis)},
            {"share", u.grant_basis.empty() ? json(nullptr) : json(u.grant_share)},
            {"units", u.grant_basis.empty() ? json(nullptr) : json(u.grant_units)},
            {"nice", u.nice}}},
          {"phases", phases_json(u.phases)}};
}

}  // namespace

json to_json(const Profile& p, size_t top) {
  json path = json::array();
  for (size_t i : p.critical_path)
    path.push_back({{"name", p.units[i].name}, {"duration_s", seconds(p.units[i].duration_ms())}});
  json units = json::array();
  for (size_t i : slowest(p, top)) units.push_back(unit_json(p.units[i]));
  json targets = json::array();
  for (size_t i = 0; i < p.targets.size() && i < top; ++i)
    targets.push_back(
        {{"name", p.targets[i].name}, {"units", p.targets[i].units}, {"duration_s", seconds(p.targets[i].total_ms)}});
  json archs = json::array();
  for (const auto& a : p.arch_times)
    archs.push_back({{"arch", fmt::format("sm_{}", a.arch)}, {"duration_s", seconds(a.ms)}, {"units", a.units}});
  return {
      {"build_dir", p.build_dir},
      {"ninja_log", {{"version", p.log_version}, {"builds", p.builds_in_log}}},
      {"jobs", p.units.size()},
      {"makespan_s", seconds(p.makespan_ms)},
      {"total_cpu_s", seconds(p.total_cpu_ms)},
      {"cpu_from_exec_log", p.cpu_from_exec},
      {"critical_path",
       {{"duration_s", seconds(p.critical_path_ms)},
        {"from_graph", p.critical_path_from_graph},
        {"method", p.critical_path_method},
        {"units", path}}},
      {"cores", p.cores},
      {"cores_source", p.cores_source},
      {"lower_bound_s", seconds(p.lower_bound_ms)},
      {"split_critical_path_s", p.split_critical_path_ms >= 0 ? seconds(p.split_critical_path_ms) : json(nullptr)},
      {"bound_by", to_string(p.bound_by)},
      {"bounding_unit", p.bounding_unit >= 0 ? json(p.units[p.bounding_unit].name) : json(nullptr)},
      {"remedy", p.remedy.empty() ? json(nullptr) : json(p.remedy)},
      {"efficiency", std::round(p.efficiency * 1000) / 1000},
      {"job_cpu_share", p.job_cpu_share >= 0 ? json(std::round(p.job_cpu_share * 1000) / 1000) : json(nullptr)},
      {"contended", p.contended},
      {"parallelism",
       {{"average", std::round(p.avg_parallelism * 100) / 100},
        {"max", p.max_parallelism},
        {"series", series(p.parallelism, 1)}}},
      {"memory",
       {{"peak_bytes", bytes(p.peak_memory_kib)},
        {"exec_log_units", p.exec_matched},
        {"series_bytes", series(p.memory, 1024.0)}}},
      {"cache", p.cache ? json{{"hits", p.cache->hits},
                               {"misses", p.cache->misses},
                               {"remote_hits", p.cache->remote_hits},
                               {"hit_rate", p.cache->hit_rate()},
                               {"record", p.cache_record},
                               {"earlier_build", p.cache_builds_ago > 0}}
                        : json(nullptr)},
      {"slowest_units", units},
      {"targets", targets},
      {"architectures", {{"method", p.arch_method.empty() ? json(nullptr) : json(p.arch_method)}, {"archs", archs}}},
      {"exec_log_problems", p.exec_problems},
      {"notes", p.notes},
  };
}

}  // namespace kiln::report
