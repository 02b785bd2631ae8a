#include "core/size_text.hpp"

#include <cmath>
#include <cstdlib>
#include <string>

namespace kiln::core {

std::optional<std::uint64_t> parse_size_bytes(std::string_view text) {
  while (!text.empty() && text.front() == ' ') text.remove_prefix(1);
  while (!text.empty() && text.back() == ' ') text.remove_suffix(1);
  size_t n = 0;
  bool digits = false, dot = false;
  for (; n < text.size(); ++n) {
    const char c = text[n];
    if (c >= '0' && c <= '9')
      digits = true;
    else if (c == '.' && !dot)
      dot = true;
    else
      break;
  }
  if (!digits) return std::nullopt;
  const double value = std::strtod(std::string(text.substr(0, n)).c_str(), nullptr);
  std::string_view unit = text.substr(n);
  while (!unit.empty() && unit.front() == ' ') unit.remove_prefix(1);
  if (!unit.empty() && unit.back() == 'B') unit.remove_suffix(1);
  double scale;
  if (unit.empty() || unit == "G")
    scale = 1e9;
  else if (unit == "k" || unit == "K")
    scale = 1e3;
  else if (unit == "M")
    scale = 1e6;
  else if (unit == "T")
    scale = 1e12;
  else if (unit == "Ki")
    scale = 1024.0;
  else if (unit == "Mi")
    scale = 1024.0 * 1024;
  else if (unit == "Gi")
    scale = 1024.0 * 1024 * 1024;
  else if (unit == "Ti")
    scale = 1024.0 * 1024 * 1024 * 1024;
  else
    return std::nullopt;
  return static_cast<std::uint64_t>(std::llround(value * scale));
}

}  // namespace kiln::core
