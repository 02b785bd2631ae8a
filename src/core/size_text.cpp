#include "core/size_text.hpp"

#include <cmath>
#include <cstdlib>
#include <string>

#include "core/text.hpp"

namespace kiln::core {

std::optional<std::uint64_t> parse_size_bytes(std::string_view text, SizeBase base, std::uint64_t bare) {
  text = trim_view(text);
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
  std::string_view unit = trim_view(text.substr(n));
  if (!unit.empty() && unit.back() == 'B') unit.remove_suffix(1);
  const bool binary_unit = unit.size() == 2 && unit[1] == 'i';
  if (binary_unit) unit.remove_suffix(1);
  if (unit.size() > 1) return std::nullopt;
  const double k = binary_unit || base == SizeBase::binary ? 1024.0 : 1000.0;
  double scale;
  switch (unit.empty() ? '\0' : unit[0]) {
    case '\0':
      if (binary_unit) return std::nullopt;  // "i" or "iB" alone
      scale = static_cast<double>(bare);
      break;
    case 'k':
    case 'K':
      scale = k;
      break;
    case 'm':
    case 'M':
      scale = k * k;
      break;
    case 'g':
    case 'G':
      scale = k * k * k;
      break;
    case 't':
    case 'T':
      scale = k * k * k * k;
      break;
    default:
      return std::nullopt;
  }
  const double bytes = std::round(value * scale);
  if (!(bytes < 18446744073709551616.0)) return std::nullopt;  // more than 64 bits hold
  return static_cast<std::uint64_t>(bytes);
}

std::optional<std::uint64_t> parse_ccache_size(std::string_view text) {
  return parse_size_bytes(text, SizeBase::decimal, 1000ull * 1000 * 1000);
}

std::string size_base_text(SizeBase base) {
  return base == SizeBase::binary ? "K, M, G and T are powers of 1024" : "K, M, G and T are powers of 1000";
}

}  // namespace kiln::core
