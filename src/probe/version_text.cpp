#include "probe/version_text.hpp"

#include <cctype>
#include <charconv>

namespace kiln::probe {

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

std::string first_line(std::string_view s) {
  auto t = trim(s);
  return t.substr(0, t.find('\n'));
}

std::optional<std::string> header_define(std::string_view text, std::string_view name) {
  size_t pos = 0;
  while (pos < text.size()) {
    size_t eol = text.find('\n', pos);
    if (eol == std::string_view::npos) eol = text.size();
    std::string_view line = text.substr(pos, eol - pos);
    pos = eol + 1;
    size_t i = 0;
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
    if (i >= line.size() || line[i] != '#') continue;
    ++i;
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
    if (line.substr(i, 6) != "define") continue;
    i += 6;
    if (i >= line.size() || (line[i] != ' ' && line[i] != '\t')) continue;
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
    if (line.substr(i, name.size()) != name) continue;
    i += name.size();
    if (i < line.size() && line[i] != ' ' && line[i] != '\t') continue;  // a longer name
    std::string value = trim(line.substr(i));
    if (auto c = value.find("/*"); c != std::string::npos) value = trim(value.substr(0, c));
    if (auto c = value.find("//"); c != std::string::npos) value = trim(value.substr(0, c));
    return value;
  }
  return std::nullopt;
}

std::optional<long long> header_define_int(std::string_view text, std::string_view name) {
  auto v = header_define(text, name);
  if (!v) return std::nullopt;
  std::string s = *v;
  // Tolerate "(9)" and "9ULL".
  while (!s.empty() && (s.front() == '(')) s.erase(0, 1);
  long long n = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), n);
  if (ec != std::errc() || p == s.data()) return std::nullopt;
  return n;
}

}  // namespace kiln::probe
