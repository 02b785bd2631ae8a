#include "core/text.hpp"

#include <algorithm>
#include <charconv>
#include <climits>
#include <cstdlib>

namespace kiln::core {
namespace {

bool space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f'; }

// from_chars over the whole (trimmed) text: a trailing character makes it no number.
template <class T>
std::optional<T> whole(std::string_view s) {
  s = trim_view(s);
  if (s.empty()) return std::nullopt;
  T v{};
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
  return v;
}

}  // namespace

std::string_view trim_right(std::string_view s) {
  while (!s.empty() && space(s.back())) s.remove_suffix(1);
  return s;
}

std::string_view trim_view(std::string_view s) {
  while (!s.empty() && space(s.front())) s.remove_prefix(1);
  return trim_right(s);
}

std::string trim(std::string_view s) { return std::string(trim_view(s)); }

std::string_view trim_line_end(std::string_view s) {
  while (!s.empty() && (s.back() == '\r' || s.back() == '\n')) s.remove_suffix(1);
  return s;
}

std::vector<std::string> split(std::string_view s, char sep) {
  std::vector<std::string> out;
  for (size_t start = 0;;) {
    const size_t end = s.find(sep, start);
    out.emplace_back(s.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start));
    if (end == std::string_view::npos) return out;
    start = end + 1;
  }
}

std::vector<std::string> split_words(std::string_view s) {
  std::vector<std::string> out;
  for (size_t i = 0; i < s.size();) {
    if (space(s[i])) {
      ++i;
      continue;
    }
    size_t end = i;
    while (end < s.size() && !space(s[end])) ++end;
    out.emplace_back(s.substr(i, end - i));
    i = end;
  }
  return out;
}

std::vector<std::string> split_any(std::string_view s, std::string_view seps) {
  std::vector<std::string> out;
  for (size_t i = 0; i < s.size();) {
    const size_t end = std::min(s.find_first_of(seps, i), s.size());
    if (end > i) out.emplace_back(s.substr(i, end - i));
    i = end + 1;
  }
  return out;
}

std::string join(const std::vector<std::string>& parts, std::string_view sep) {
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i) out += sep;
    out += parts[i];
  }
  return out;
}

std::string replace_all(std::string s, std::string_view what, std::string_view with) {
  if (what.empty()) return s;
  for (size_t pos = 0; (pos = s.find(what, pos)) != std::string::npos; pos += with.size())
    s.replace(pos, what.size(), with);
  return s;
}

std::string to_lower(std::string_view s) {
  std::string out(s);
  for (char& c : out)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return out;
}

std::string to_upper(std::string_view s) {
  std::string out(s);
  for (char& c : out)
    if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
  return out;
}

std::string base_name(std::string_view path) {
  const size_t slash = path.find_last_of('/');
  return std::string(slash == std::string_view::npos ? path : path.substr(slash + 1));
}

std::string dir_name(std::string_view path) {
  const size_t slash = path.find_last_of('/');
  if (slash == std::string_view::npos) return ".";
  return slash == 0 ? "/" : std::string(path.substr(0, slash));
}

std::string without_trailing_slashes(std::string path) {
  while (path.size() > 1 && path.back() == '/') path.pop_back();
  return path;
}

bool starts_with(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }

bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

std::optional<long long> parse_int(std::string_view s) {
  s = trim_view(s);
  if (!s.empty() && s.front() == '+') s.remove_prefix(1);  // from_chars takes '-' only
  return whole<long long>(s);
}

std::optional<std::uint64_t> parse_uint(std::string_view s) {
  s = trim_view(s);
  if (!s.empty() && (s.front() == '-' || s.front() == '+')) return std::nullopt;
  return whole<std::uint64_t>(s);
}

std::optional<double> parse_double(std::string_view s) {
  s = trim_view(s);
  if (!s.empty() && s.front() == '+') s.remove_prefix(1);
  return whole<double>(s);
}

std::optional<int> parse_count(std::string_view s) {
  const auto n = parse_int(s);
  if (!n || *n < 0 || *n > INT_MAX) return std::nullopt;
  return static_cast<int>(*n);
}

}  // namespace kiln::core
