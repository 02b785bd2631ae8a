#include "drive/ninja_progress.hpp"

#include <charconv>

namespace kiln::drive {

std::optional<NinjaStatus> parse_ninja_status(std::string_view line) {
  // Ninja's default NINJA_STATUS is "[%f/%t] "; `pip -v` indents its subprocess output.
  while (!line.empty() && line.front() == ' ') line.remove_prefix(1);
  if (line.size() < 6 || line[0] != '[') return std::nullopt;
  auto slash = line.find('/');
  auto close = line.find(']');
  if (slash == std::string_view::npos || close == std::string_view::npos || slash > close) return std::nullopt;
  NinjaStatus s;
  auto r1 = std::from_chars(line.data() + 1, line.data() + slash, s.done);
  auto r2 = std::from_chars(line.data() + slash + 1, line.data() + close, s.total);
  if (r1.ec != std::errc() || r1.ptr != line.data() + slash || r2.ec != std::errc() || r2.ptr != line.data() + close)
    return std::nullopt;
  if (s.total <= 0 || s.done < 0 || s.done > s.total) return std::nullopt;
  std::string_view rest = line.substr(close + 1);
  while (!rest.empty() && rest.front() == ' ') rest.remove_prefix(1);
  s.description = std::string(rest);
  return s;
}

std::optional<std::chrono::seconds> estimate_remaining(const NinjaStatus& s, std::chrono::milliseconds elapsed) {
  if (s.done < 2 || elapsed.count() < 1000) return std::nullopt;
  const double per_step = static_cast<double>(elapsed.count()) / s.done;
  return std::chrono::seconds(static_cast<long>(per_step * (s.total - s.done) / 1000.0 + 0.5));
}

}  // namespace kiln::drive
