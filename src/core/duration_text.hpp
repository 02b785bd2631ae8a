#pragma once
// A span of time for people, one spelling everywhere (reports, remedies, the progress line, grant
// reasons, the build summary): "45s", "1m05s", "2h05m". JSON carries numbers instead
// (docs/cli/json.md).
#include <chrono>
#include <string>

namespace kiln::core {

// How much of a short span is kept: whole seconds, or decimals below ten seconds (a step's time in a
// report: "1.25s") or below a minute (a build's phases: "12.3s").
enum class ShortSpan { whole, hundredths_under_10s, tenths_under_1m };

// `ms` milliseconds: whole seconds rounded ("0s", "45s"), then "1m05s" from a minute and "2h05m" from
// an hour; "-" for a negative span (unknown).
std::string duration_text(double ms, ShortSpan short_span = ShortSpan::whole);
inline std::string duration_text(std::chrono::milliseconds d, ShortSpan s = ShortSpan::whole) {
  return duration_text(static_cast<double>(d.count()), s);
}

}  // namespace kiln::core
