#include "report/profile.hpp"

#include <algorithm>

namespace kiln::report {

double Unit::device_ms() const {
  double d = 0;
  for (const auto& [a, ph] : phases.archs) d += ph.device_ms + ph.ptxas_ms;
  return d;
}

long Unit::ideal_ms(int cores) const {
  const long wall = std::max(0L, duration_ms() - waited_ms);
  const double d = device_ms();
  if (d <= 0) return wall;
  // The device phases as they ran: summed over architectures, which ran `threads` at a time, each
  // already split `split` ways. Their work on one thread is at most d x split (nvcc's split is far
  // from linear: cicc ran 2.2x faster on 14 threads on the H100), so on every core they take at least
  // d x split / cores, and never more than they took. The rest of the wall stays serial.
  const double as_ran = d / std::max(1, threads);
  const double ideal_device = std::min(as_ran, d * std::max(1, split) / std::max(1, cores));
  const double serial = std::max(0.0, static_cast<double>(wall) - as_ran);
  return static_cast<long>(std::min<double>(wall, serial + ideal_device));
}

std::vector<size_t> slowest(const Profile& p, size_t n) {
  std::vector<size_t> idx(p.units.size());
  for (size_t i = 0; i < idx.size(); ++i) idx[i] = i;
  std::stable_sort(idx.begin(), idx.end(),
                   [&](size_t a, size_t b) { return p.units[a].duration_ms() > p.units[b].duration_ms(); });
  if (idx.size() > n) idx.resize(n);
  return idx;
}

}  // namespace kiln::report
