#include "core/text.hpp"

#include <charconv>
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

std::vector<std::string> split(std::string_view s, char sep) {
  std::vector<std::string> out;
  for (size_t start = 0;;) {
    const size_t end = s.find(sep, start);
    out.emplace_back(s.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start));
    if (end == std::string_view::npos) return out;
    start = end + 1;
  }
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

}  // namespace kiln::core
