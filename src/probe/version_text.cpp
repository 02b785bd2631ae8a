#include "probe/version_text.hpp"

#include <charconv>

namespace kiln::probe {

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
