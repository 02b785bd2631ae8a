#pragma once
// Reading C++ and CUDA text without compiling it: identifiers, literals and matching brackets, for
// the scanners that weigh a unit's code (launch/reachable_launches, launch/switch_cases, launch/unrolled_code). Every
// function stays inside the text it is given, however unbalanced.
#include <algorithm>
#include <cctype>
#include <cstddef>
#include <string_view>

namespace kiln::launch::cxx {

inline constexpr size_t npos = std::string_view::npos;

inline bool is_ident(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// The index of the quote that closes the literal opened at `i`, or the end of its line.
inline size_t literal_end(std::string_view t, size_t i) {
  const char q = t[i];
  for (++i; i < t.size() && t[i] != q && t[i] != '\n'; ++i)
    if (t[i] == '\\') ++i;
  return std::min(i, t.size() - 1);
}

// The index of the `close` that matches the `open_c` at `open`, literals skipped; npos when none.
inline size_t matching(std::string_view t, size_t open, char open_c, char close) {
  int depth = 0;
  for (size_t i = open; i < t.size(); ++i) {
    const char c = t[i];
    if (c == '"' || c == '\'')
      i = literal_end(t, i);
    else if (c == open_c)
      ++depth;
    else if (c == close && --depth == 0)
      return i;
  }
  return npos;
}

inline size_t skip_spaces(std::string_view t, size_t i) {
  while (i < t.size() && std::isspace(static_cast<unsigned char>(t[i]))) ++i;
  return i;
}

// Going backwards from `i` (exclusive): the index after the last non-space character before it.
inline size_t back_spaces(std::string_view t, size_t i) {
  while (i > 0 && std::isspace(static_cast<unsigned char>(t[i - 1]))) --i;
  return i;
}

// Whether the whole word `w` stands at `i` (no identifier character either side).
inline bool word_at(std::string_view t, size_t i, std::string_view w) {
  return t.compare(i, w.size(), w) == 0 && (i == 0 || !is_ident(t[i - 1])) &&
         (i + w.size() >= t.size() || !is_ident(t[i + w.size()]));
}

// The identifier that ends at `end` (exclusive), read backwards.
inline std::string_view ident_before(std::string_view t, size_t end) {
  size_t b = end;
  while (b > 0 && is_ident(t[b - 1])) --b;
  return t.substr(b, end - b);
}

}  // namespace kiln::launch::cxx
