#include "report/nvcc_time.hpp"

#include "launch/nvcc_phases.hpp"

#include <charconv>
#include <sstream>

namespace kiln::report {
namespace {

// nvcc's temporary files are named tmpxft_<pid>_<n>-...: the token tells one nvcc run from another
// when parallel compiles append to the same file.
std::string run_token(const std::string& files) {
  size_t a = files.find("tmpxft_");
  if (a == std::string::npos) return {};
  size_t b = files.find('-', a);
  return files.substr(a, b == std::string::npos ? std::string::npos : b - a);
}

}  // namespace

NvccTimes parse_nvcc_time(const std::string& csv) {
  NvccTimes out;
  std::vector<launch::NvccPhases> phases;                           // one per unit, the one model of nvcc's phases
  std::map<std::pair<std::string, std::string>, size_t> run_index;  // (source, token) -> unit
  std::map<std::string, size_t> last_for_source;
  std::istringstream in(csv);
  std::string line;
  while (std::getline(in, line)) {
    if (launch::nvcc_time_filler(line)) continue;
    auto row = launch::nvcc_time_row(line);
    if (!row) {
      ++out.skipped;
      continue;
    }
    ++out.rows;
    const auto& f = row->f;
    const std::string& source = f[0];
    const std::string token = run_token(f[2] + " " + f[3]);
    if (source.empty()) continue;  // the driver's own row
    size_t idx;
    if (!token.empty()) {
      auto key = std::make_pair(source, token);
      auto it = run_index.find(key);
      if (it == run_index.end()) {
        idx = out.units.size();
        out.units.push_back(UnitArchTime{source, {}, 0});
        phases.emplace_back();
        run_index[key] = idx;
        last_for_source[source] = idx;
      } else {
        idx = it->second;
      }
    } else {
      // The final host compile names the object, not a temporary: it belongs to the latest run of its source.
      auto it = last_for_source.find(source);
      if (it == last_for_source.end()) continue;
      idx = it->second;
    }
    launch::add_nvcc_time_row(phases[idx], *row);
  }
  // Per architecture: its device phases (front end, cicc, ptxas); the rest is the unit's host time.
  for (size_t i = 0; i < out.units.size(); ++i) {
    double device = 0;
    for (const auto& [arch, p] : phases[i].archs) {
      out.units[i].device_ms[arch] = p.device_ms + p.ptxas_ms;
      device += p.device_ms + p.ptxas_ms;
    }
    out.units[i].host_ms = phases[i].total_ms() - device;
  }
  // Keep only the last compile of each source.
  std::vector<UnitArchTime> last;
  for (size_t i = 0; i < out.units.size(); ++i)
    if (last_for_source[out.units[i].source] == i) last.push_back(out.units[i]);
  out.units = std::move(last);
  return out;
}

}  // namespace kiln::report
