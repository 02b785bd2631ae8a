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

size_t typo_limit(std::string_view typed) { return std::max<size_t>(1, typed.size() / 4); }

std::vector<std::string> nearest_names(std::string_view typed, const std::vector<std::string>& candidates, size_t n) {
  std::vector<std::pair<size_t, std::string>> scored;
  const size_t limit = typo_limit(typed);
  for (const auto& c : candidates)
    if (c != typed)
      if (const size_t d = edit_distance(typed, c); d <= limit) scored.emplace_back(d, c);
  std::sort(scored.begin(), scored.end());
  scored.erase(std::unique(scored.begin(), scored.end()), scored.end());
  std::vector<std::string> out;
  for (size_t i = 0; i < scored.size() && i < n; ++i) out.push_back(scored[i].second);
  return out;
}

std::optional<std::string> closest(std::string_view typed, const std::vector<std::string>& candidates) {
  auto near = nearest_names(typed, candidates, 1);
  if (near.empty()) return std::nullopt;
  return near.front();
}

}  // namespace kiln::core
