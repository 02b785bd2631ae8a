#include "core/duration_text.hpp"

#include <fmt/format.h>

namespace kiln::core {

std::string duration_text(double ms, ShortSpan short_span) {
  if (!(ms >= 0)) return "-";
  if (short_span == ShortSpan::hundredths_under_10s && ms < 10'000) return fmt::format("{:.2f}s", ms / 1000);
  if (short_span == ShortSpan::tenths_under_1m && ms < 60'000) return fmt::format("{:.1f}s", ms / 1000);
  const auto s = static_cast<long long>(ms / 1000 + 0.5);
  if (s < 60) return fmt::format("{}s", s);
  if (s < 3600) return fmt::format("{}m{:02}s", s / 60, s % 60);
  return fmt::format("{}h{:02}m", s / 3600, s % 3600 / 60);
}

}  // namespace kiln::core
