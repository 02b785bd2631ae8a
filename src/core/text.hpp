#pragma once
// Small text helpers, one owner for each: trimming, splitting and joining, case, prefixes and
// suffixes, and numbers parsed whole (a number followed by anything else is no number, never a
// silent prefix).
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
// Line endings (CR, LF) off the right end, and nothing else.
std::string_view trim_line_end(std::string_view s);

// Every field between separators, empty ones kept: split("a,,b", ',') is {"a", "", "b"}; split("", ',') is {""}.
std::vector<std::string> split(std::string_view s, char sep);
// The words between runs of white space, none empty: split_words(" a  b\n") is {"a", "b"}.
std::vector<std::string> split_words(std::string_view s);
// The pieces between runs of any of `seps`, none empty: split_any("a;; b", "; ") is {"a", "b"}.
std::vector<std::string> split_any(std::string_view s, std::string_view seps);
// The parts with `sep` between them: join({"a", "b"}, ", ") is "a, b".
std::string join(const std::vector<std::string>& parts, std::string_view sep);
// Every `what` in `s` replaced by `with`, left to right, the replacements not searched again.
std::string replace_all(std::string s, std::string_view what, std::string_view with);

// ASCII letters only change case; other bytes (UTF-8 included) stay as they are.
std::string to_lower(std::string_view s);
std::string to_upper(std::string_view s);

// The part of a path after its last '/' (all of it without one), and the part before it ("." without
// one, "/" for a file at the root).
std::string base_name(std::string_view path);
std::string dir_name(std::string_view path);
// The path without trailing '/'s, the root "/" kept: "a/b//" -> "a/b", "/" -> "/".
std::string without_trailing_slashes(std::string path);

bool starts_with(std::string_view s, std::string_view prefix);
bool ends_with(std::string_view s, std::string_view suffix);

// The whole of `s` (white space around it allowed) as a number; nullopt for anything else, an
// empty string, or a value out of range. parse_uint takes no sign.
std::optional<long long> parse_int(std::string_view s);
std::optional<std::uint64_t> parse_uint(std::string_view s);
std::optional<double> parse_double(std::string_view s);
// A count: a whole number from 0 to INT_MAX.
std::optional<int> parse_count(std::string_view s);

}  // namespace kiln::core
