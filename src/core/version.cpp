#include "core/version.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <climits>

namespace kiln::core {
namespace {

bool digit_at(std::string_view t, size_t i) { return i < t.size() && std::isdigit(static_cast<unsigned char>(t[i])); }

// The digits from `i` on as a number (INT_MAX when larger); `i` moves past them.
int digits_from(std::string_view t, size_t& i) {
  long long n = 0;
  for (; digit_at(t, i); ++i) n = std::min<long long>(n * 10 + (t[i] - '0'), INT_MAX);
  return static_cast<int>(n);
}

}  // namespace

std::string Version::str() const {
  std::string s;
  for (size_t i = 0; i < parts.size(); ++i) s += (i ? "." : "") + std::to_string(parts[i]);
  return s;
}

int compare(const Version& a, const Version& b) {
  const size_t n = std::max(a.parts.size(), b.parts.size());
  for (size_t i = 0; i < n; ++i) {
    int x = i < a.parts.size() ? a.parts[i] : 0, y = i < b.parts.size() ? b.parts[i] : 0;
    if (x != y) return x < y ? -1 : 1;
  }
  return 0;
}

std::optional<Version> parse_version(std::string_view t) {
  Version v;
  size_t i = 0;
  while (i < t.size()) {
    int n = 0;
    auto [p, ec] = std::from_chars(t.data() + i, t.data() + t.size(), n);
    if (ec != std::errc() || n < 0) return std::nullopt;
    v.parts.push_back(n);
    i = static_cast<size_t>(p - t.data());
    if (i == t.size()) break;
    if (t[i] != '.') return std::nullopt;
    ++i;
    if (i == t.size()) return std::nullopt;
  }
  if (v.parts.empty()) return std::nullopt;
  return v;
}

std::optional<Version> find_version(std::string_view t) {
  for (size_t i = 0; i < t.size(); ++i) {
    if (!std::isdigit(static_cast<unsigned char>(t[i]))) continue;
    if (i > 0 && (std::isalnum(static_cast<unsigned char>(t[i - 1])) || t[i - 1] == '.')) continue;
    size_t j = i;
    while (j < t.size() && (std::isdigit(static_cast<unsigned char>(t[j])) || t[j] == '.')) ++j;
    std::string_view cand = t.substr(i, j - i);
    while (!cand.empty() && cand.back() == '.') cand.remove_suffix(1);
    if (cand.find('.') == std::string_view::npos) {
      i = j;
      continue;
    }
    if (auto v = parse_version(cand)) return v;
    i = j;
  }
  return std::nullopt;
}

Version leading_version(std::string_view t) {
  Version v;
  size_t i = 0;
  if (i < t.size() && (t[i] == 'v' || t[i] == 'V')) ++i;
  while (digit_at(t, i)) {
    v.parts.push_back(digits_from(t, i));
    if (i < t.size() && t[i] == '.' && digit_at(t, i + 1))
      ++i;
    else
      break;
  }
  return v;
}

Version cmake_version(std::string_view t) {
  Version v;
  size_t i = 0;
  while (i < t.size()) {
    v.parts.push_back(digits_from(t, i));
    while (i < t.size() && t[i] != '.') ++i;
    if (i < t.size()) ++i;
  }
  return v;
}

Version symbol_version(std::string_view t) {
  const size_t us = t.find('_');
  return cmake_version(us == std::string_view::npos ? t : t.substr(us + 1));
}

std::string major_minor(std::string_view t) {
  Version v = leading_version(t);
  if (v.parts.size() > 2) v.parts.resize(2);
  return v.str();
}

}  // namespace kiln::core
