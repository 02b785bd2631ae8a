#include "launch/unit_weight.hpp"

namespace kiln::launch {

double estimate_work(const io::Filesystem& fs, const std::string& source, int device_targets) {
  return estimate_unit(fs, source, device_targets).seconds;
}

Weights unit_weights(const std::vector<UnitWork>& units) {
  Weights out;
  out.w.assign(units.size(), 0);
  // The scale between learned milliseconds and estimated seconds, from the units that have both.
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
  // Estimated seconds to learned milliseconds: by the units with both; else the learned mean stands for the
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
