#pragma once
// Small text helpers the detectors share: `#define NAME VALUE` lines read from headers, a tool's
// first line; versions are core/version's (named here for the detectors that read them).
#include <optional>
#include <string>
#include <string_view>
#include <vector>
#include "core/text.hpp"
#include "core/version.hpp"

namespace kiln::probe {

using core::compare;  // core/version
using core::find_version;
using core::parse_version;
using core::Version;

// The value of `#define name value` in a header, trimmed; nullopt when absent.
std::optional<std::string> header_define(std::string_view header_text, std::string_view name);
// Same, as an integer.
std::optional<long long> header_define_int(std::string_view header_text, std::string_view name);

using core::trim;  // core/text
std::string first_line(std::string_view s);

}  // namespace kiln::probe
