#include "core/requirement.hpp"

#include <algorithm>
#include <cctype>

namespace kiln::core {

namespace {

// ==2.4.*: the parts of `prefix` equal, those after it any.
bool prefix_equal(const Version& v, const std::vector<int>& prefix) {
  for (size_t i = 0; i < prefix.size(); ++i)
    if ((i < v.parts.size() ? v.parts[i] : 0) != prefix[i]) return false;
  return true;
}

bool clause_met(const Requirement::Clause& c, const Version& v) {
  const int cmp = compare(v, c.release);
  if (c.op == "==" || c.op == "===") return c.wildcard ? prefix_equal(v, c.release.parts) : cmp == 0;
  if (c.op == "!=") return c.wildcard ? !prefix_equal(v, c.release.parts) : cmp != 0;
  if (c.op == ">=") return cmp >= 0;
  if (c.op == "<=") return cmp <= 0;
  if (c.op == ">") return cmp > 0;
  if (c.op == "<") return cmp < 0;
  if (c.op == "~=") {  // ~=2.3.1: >=2.3.1 and ==2.3.*
    const auto& r = c.release.parts;
    if (cmp < 0 || r.size() < 2) return cmp >= 0;
    return prefix_equal(v, std::vector<int>(r.begin(), r.end() - 1));
  }
  return true;
}

}  // namespace

std::optional<Requirement> parse_requirement(std::string_view text) {
  if (auto semi = text.find(';'); semi != std::string_view::npos) text = text.substr(0, semi);
  std::string s;
  for (char ch : text)
    if (!std::isspace(static_cast<unsigned char>(ch))) s += ch;
  size_t i = 0;
  while (i < s.size() && (std::isalnum(static_cast<unsigned char>(s[i])) || s[i] == '-' || s[i] == '_' || s[i] == '.'))
    ++i;
  if (i == 0) return std::nullopt;
  Requirement r;
  r.name = s.substr(0, i);
  std::string rest = s.substr(i);
  if (!rest.empty() && rest[0] == '[') return r;  // extras: kiln reads no version from them
  if (!rest.empty() && rest[0] == '@') return r;  // a URL
  if (!rest.empty() && rest[0] == '(' && rest.back() == ')') rest = rest.substr(1, rest.size() - 2);
  r.specifier = rest;
  size_t at = 0;
  while (at < rest.size()) {
    size_t end = rest.find(',', at);
    if (end == std::string::npos) end = rest.size();
    std::string_view part(rest.data() + at, end - at);
    at = end + 1;
    Requirement::Clause c;
    for (const char* op : {"===", "~=", "==", "!=", "<=", ">=", "<", ">"})
      if (part.substr(0, std::string_view(op).size()) == op) {
        c.op = op;
        break;
      }
    if (c.op.empty()) return std::nullopt;  // "torch2" or a typo: not a requirement kiln can judge
    std::string_view v = part.substr(c.op.size());
    if (v.size() >= 2 && v.substr(v.size() - 2) == ".*") c.wildcard = true, v.remove_suffix(2);
    c.release = leading_version(v);
    if (c.release.empty()) return std::nullopt;
    r.clauses.push_back(std::move(c));
  }
  return r;
}

std::optional<bool> requirement_met(const Requirement& r, std::string_view version) {
  const Version v = leading_version(version);
  if (v.empty()) return std::nullopt;
  return std::all_of(r.clauses.begin(), r.clauses.end(), [&](const auto& c) { return clause_met(c, v); });
}

}  // namespace kiln::core
