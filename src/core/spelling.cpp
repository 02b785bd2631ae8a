#include "core/spelling.hpp"

#include <algorithm>

namespace kiln::core {

size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::vector<size_t>> d(a.size() + 1, std::vector<size_t>(b.size() + 1));
  for (size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (size_t i = 1; i <= a.size(); ++i)
    for (size_t j = 1; j <= b.size(); ++j) {
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  return d[a.size()][b.size()];
}

std::optional<std::string> closest(std::string_view typed, const std::vector<std::string>& candidates) {
  const size_t limit = std::max<size_t>(1, typed.size() / 3);
  std::optional<std::string> best;
  size_t best_d = limit + 1;
  for (const auto& c : candidates) {
    const size_t dist = edit_distance(typed, c);
    if (dist < best_d && c != typed) best_d = dist, best = c;
  }
  return best;
}

}  // namespace kiln::core
