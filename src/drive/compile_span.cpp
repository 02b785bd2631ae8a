#include "drive/compile_span.hpp"

#include <algorithm>
#include <climits>

#include "launch/exec_record.hpp"

namespace kiln::drive {

std::optional<CompileSpan> compile_span(const std::string& exec_log, long long from_ms, long long to_ms) {
  long long first = LLONG_MAX, last = LLONG_MIN;
  CompileSpan s;
  for (const auto& r : launch::parse_exec_log(exec_log).records) {
    if (r.start_ms < from_ms || r.start_ms > to_ms) continue;
    first = std::min(first, r.start_ms);
    last = std::max(last, r.start_ms + std::max<long long>(0, r.wall_ms));
    ++s.units;
  }
  if (s.units == 0) return std::nullopt;
  last = std::min(last, to_ms);  // a record's clock against ours: never past the end
  s.before_s = (first - from_ms) / 1000.0;
  s.span_s = std::max(0LL, last - first) / 1000.0;
  s.after_s = std::max(0LL, to_ms - last) / 1000.0;
  return s;
}

}  // namespace kiln::drive
