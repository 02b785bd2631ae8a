#include "drive/compile_span.hpp"

#include <algorithm>
#include <climits>

#include <nlohmann/json.hpp>

#include "launch/exec_record.hpp"

namespace kiln::drive {
namespace {

constexpr const char* kSchema = "kiln.compile-span/1";

}  // namespace

std::optional<CompileSpan> compile_span(const std::string& exec_log, long long from_ms, long long to_ms) {
  long long first = LLONG_MAX, last = LLONG_MIN;
  CompileSpan s;
  s.from_ms = from_ms;
  s.to_ms = to_ms;
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

std::string compile_span_path(const std::string& kiln_build_dir) { return kiln_build_dir + "/.kiln/compile-span.json"; }

std::string compile_span_json(const CompileSpan& s) {
  return nlohmann::ordered_json{{"schema", kSchema},      {"from_ms", s.from_ms}, {"to_ms", s.to_ms},
                                {"before_s", s.before_s}, {"span_s", s.span_s},   {"after_s", s.after_s},
                                {"units", s.units}}
             .dump() +
         "\n";
}

std::optional<CompileSpan> parse_compile_span(const std::string& text) {
  const auto j = nlohmann::json::parse(text, nullptr, false);
  if (!j.is_object() || j.value("schema", std::string()) != kSchema) return std::nullopt;
  CompileSpan s;
  auto seconds = [&](const char* k, double& into) {
    auto it = j.find(k);
    if (it == j.end() || !it->is_number() || it->get<double>() < 0 || it->get<double>() > 1e7) return false;
    into = it->get<double>();
    return true;
  };
  auto integer = [&](const char* k, long long& into) {
    auto it = j.find(k);
    if (it == j.end() || !it->is_number_integer() || it->get<long long>() < 0) return false;
    into = it->get<long long>();
    return true;
  };
  long long units = 0;
  if (!seconds("before_s", s.before_s) || !seconds("span_s", s.span_s) || !seconds("after_s", s.after_s) ||
      !integer("from_ms", s.from_ms) || !integer("to_ms", s.to_ms) || !integer("units", units) || s.to_ms < s.from_ms ||
      units > INT_MAX)
    return std::nullopt;
  s.units = static_cast<int>(units);
  return s;
}

}  // namespace kiln::drive
