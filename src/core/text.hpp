#pragma once
// Small text helpers, one owner for each: trimming, splitting, prefixes and suffixes, and numbers
// parsed whole (a number followed by anything else is no number, never a silent prefix).
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kiln::core {

// White space (space, tab, CR, LF, VT, FF) off both ends, or off the right end only.
std::string trim(std::string_view s);
std::string_view trim_view(std::string_view s);
std::string_view trim_right(std::string_view s);

// Every field between separators, empty ones kept: split("a,,b", ',') is {"a", "", "b"}; split("", ',') is {""}.
std::vector<std::string> split(std::string_view s, char sep);

bool starts_with(std::string_view s, std::string_view prefix);
bool ends_with(std::string_view s, std::string_view suffix);

// The whole of `s` (white space around it allowed) as a number; nullopt for anything else, an
// empty string, or a value out of range. parse_uint takes no sign.
std::optional<long long> parse_int(std::string_view s);
std::optional<std::uint64_t> parse_uint(std::string_view s);
std::optional<double> parse_double(std::string_view s);

}  // namespace kiln::core
