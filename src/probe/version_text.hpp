#pragma once
// Small text helpers the detectors share: dotted versions pulled out of tool output and
// `#define NAME VALUE` lines read from headers.
#include <optional>
#include <string>
#include <string_view>
#include <vector>
#include "core/text.hpp"

namespace kiln::probe {

// A dotted version, compared numerically part by part ("3.18" < "3.25.1").
struct Version {
  std::vector<int> parts;
  std::string str() const;
  int major() const { return parts.empty() ? 0 : parts[0]; }
  int minor() const { return parts.size() > 1 ? parts[1] : 0; }
  bool empty() const { return parts.empty(); }
};
int compare(const Version& a, const Version& b);              // -1, 0, 1; missing parts count as 0
std::optional<Version> parse_version(std::string_view text);  // "3.25.1" exactly
// The first dotted number (at least major.minor) in free text, e.g. "cmake version 3.25.1".
std::optional<Version> find_version(std::string_view text);

// The value of `#define name value` in a header, trimmed; nullopt when absent.
std::optional<std::string> header_define(std::string_view header_text, std::string_view name);
// Same, as an integer.
std::optional<long long> header_define_int(std::string_view header_text, std::string_view name);

using core::trim;  // core/text
std::string first_line(std::string_view s);

}  // namespace kiln::probe
