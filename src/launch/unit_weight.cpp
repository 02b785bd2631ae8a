#include "launch/unit_weight.hpp"

#include <set>

namespace kiln::launch {
namespace {

std::string dir_of(const std::string& path) {
  const auto slash = path.find_last_of('/');
  return slash == std::string::npos ? std::string() : path.substr(0, slash + 1);
}

// The "..." includes of `text`, as written.
std::vector<std::string> quoted_includes(const std::string& text) {
  std::vector<std::string> out;
  size_t pos = 0;
  while ((pos = text.find("#include", pos)) != std::string::npos) {
    pos += 8;
    while (pos < text.size() && (text[pos] == ' ' || text[pos] == '\t')) ++pos;
    if (pos >= text.size() || text[pos] != '"') continue;
    const auto end = text.find('"', pos + 1);
    if (end == std::string::npos || text.find('\n', pos) < end) continue;
    out.push_back(text.substr(pos + 1, end - pos - 1));
  }
  return out;
}

}  // namespace

double estimate_work(const io::Filesystem& fs, const std::string& source, int device_targets) {
  // Bounded: a project with a header web still costs a few dozen reads per launch.
  constexpr size_t kMaxFiles = 64;
  std::set<std::string> seen{source};
  std::vector<std::string> todo{source};
  double bytes = 0;
  bool read_source = false;
  while (!todo.empty() && seen.size() <= kMaxFiles) {
    const std::string path = todo.back();
    todo.pop_back();
    auto text = fs.read(path);
    if (!text) continue;
    read_source = read_source || path == source;
    bytes += static_cast<double>(text->size());
    for (const auto& inc : quoted_includes(*text)) {
      const std::string p = inc.front() == '/' ? inc : dir_of(path) + inc;
      if (seen.insert(p).second) todo.push_back(p);
    }
  }
  if (!read_source) return 0;
  return device_targets > 0 ? bytes * 10 * device_targets : bytes;
}

Weights unit_weights(const std::vector<UnitWork>& units) {
  Weights out;
  out.w.assign(units.size(), 0);
  // The scale between learned milliseconds and estimated bytes, from the units that have both.
  double both_ms = 0, both_est = 0;
  size_t learned = 0, estimated = 0;
  for (const auto& u : units) {
    if (u.cpu_ms && *u.cpu_ms > 0) ++learned;
    if (u.estimate > 0 && !(u.cpu_ms && *u.cpu_ms > 0)) ++estimated;
    if (u.cpu_ms && *u.cpu_ms > 0 && u.estimate > 0) {
      both_ms += static_cast<double>(*u.cpu_ms);
      both_est += u.estimate;
    }
  }
  double learned_mean = 0, est_mean = 0;
  size_t n_learned = 0, n_est = 0;
  for (const auto& u : units) {
    if (u.cpu_ms && *u.cpu_ms > 0) learned_mean += static_cast<double>(*u.cpu_ms), ++n_learned;
    if (u.estimate > 0) est_mean += u.estimate, ++n_est;
  }
  if (n_learned) learned_mean /= static_cast<double>(n_learned);
  if (n_est) est_mean /= static_cast<double>(n_est);
  // Estimated bytes to milliseconds: by the units with both; else the learned mean stands for the
  // mean estimate; with nothing learned the estimates are the scale.
  const double scale = both_est > 0 ? both_ms / both_est : (n_learned && est_mean > 0 ? learned_mean / est_mean : 1.0);
  double sum = 0;
  size_t known = 0;
  for (size_t i = 0; i < units.size(); ++i) {
    const auto& u = units[i];
    if (u.cpu_ms && *u.cpu_ms > 0)
      out.w[i] = static_cast<double>(*u.cpu_ms);
    else if (u.estimate > 0)
      out.w[i] = u.estimate * scale;
    if (out.w[i] > 0) sum += out.w[i], ++known;
  }
  const double mean = known ? sum / static_cast<double>(known) : 1.0;
  for (auto& w : out.w)
    if (w <= 0) w = mean;
  out.basis = known == 0             ? "equal"
              : learned && estimated ? "learned and estimated"
              : learned              ? "learned CPU time"
                                     : "estimate";
  return out;
}

}  // namespace kiln::launch
