#include "diagnose/empty_submodule.hpp"

namespace kiln::diagnose {
namespace {

bool path_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-' ||
         c == '.' || c == '+';
}

bool space(char c) { return c == ' ' || c == '\t' || c == '"' || c == '\'' || c == '\n' || c == '\r'; }

// Whether the occurrence of a submodule's path at [at, at + n) of `text` is an include flag's
// folder: its token starts with -I/-isystem/-iquote (glued), or the token before is one of them.
bool in_include_flag(std::string_view text, size_t at, size_t n) {
  if (at + n < text.size() && path_char(text[at + n])) return false;  // third_party/cut in third_party/cutlass
  size_t b = at;
  while (b > 0 && !space(text[b - 1])) --b;
  const std::string_view token = text.substr(b, at - b);
  if (token == "-I" || token == "-isystem" || token == "-iquote") return true;  // -Ithird_party/x
  if (!token.empty() && token.back() != '/') return false;                      // my_third_party/x
  if (token.starts_with("-I") || token.starts_with("-isystem") || token.starts_with("-iquote"))
    return true;  // -I/src/p/third_party/x
  if (!token.empty() && token.front() != '/' && !token.starts_with("./") && !token.starts_with("../")) return false;
  // The token before: "-I /abs/path" or "-isystem path".
  size_t e = b;
  while (e > 0 && space(text[e - 1]) && text[e - 1] != '\n') --e;
  size_t s = e;
  while (s > 0 && !space(text[s - 1])) --s;
  const std::string_view before = text.substr(s, e - s);
  return before == "-I" || before == "-isystem" || before == "-iquote";
}

}  // namespace

SubmoduleIncludes::SubmoduleIncludes(std::vector<std::string> empty_submodules)
    : submodules_(std::move(empty_submodules)), included_(submodules_.size(), false) {}

void SubmoduleIncludes::scan(std::string_view text) {
  for (size_t i = 0; i < submodules_.size(); ++i) {
    if (included_[i] || submodules_[i].empty()) continue;
    for (size_t at = text.find(submodules_[i]); at != std::string_view::npos; at = text.find(submodules_[i], at + 1))
      if (in_include_flag(text, at, submodules_[i].size())) {
        included_[i] = true;
        break;
      }
  }
}

std::optional<std::string> SubmoduleIncludes::holder_of(std::string_view header) const {
  for (const auto& s : submodules_)
    if (header.starts_with(s + "/")) return s;
  for (size_t i = 0; i < submodules_.size(); ++i)
    if (included_[i]) return submodules_[i];
  return std::nullopt;
}

}  // namespace kiln::diagnose
