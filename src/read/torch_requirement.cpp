#include "read/torch_requirement.hpp"

#include <algorithm>
#include <cctype>

#include "core/text.hpp"

namespace kiln::read {

namespace {

// "torch" as a whole package name at `at`: not torchvision, torch-scatter or pytorch.
bool names_torch(std::string_view s, size_t at) {
  if (s.substr(at, 5) != "torch") return false;
  if (at > 0 && (std::isalnum(static_cast<unsigned char>(s[at - 1])) || s[at - 1] == '-' || s[at - 1] == '_'))
    return false;
  const size_t end = at + 5;
  return end == s.size() ||
         !(std::isalnum(static_cast<unsigned char>(s[end])) || s[end] == '-' || s[end] == '_' || s[end] == '.');
}

void add(std::string_view text, const std::string& file, int line, std::vector<TorchRequirement>& out) {
  size_t start = 0;
  while (start < text.size() && std::isspace(static_cast<unsigned char>(text[start]))) ++start;
  if (!names_torch(text, start)) return;
  auto r = core::parse_requirement(text.substr(start));
  if (r && !r->clauses.empty()) out.push_back({*r, file + ":" + std::to_string(line)});
}

// ">=2.1,<2.7" and "<2.7,>=2.1" are one range.
std::vector<std::string> clause_set(const std::string& specifier) {
  auto out = core::split(specifier, ',');
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

}  // namespace

std::vector<TorchRequirement> distinct_torch_ranges(const std::vector<TorchRequirement>& requirements) {
  std::vector<TorchRequirement> out;
  std::vector<std::vector<std::string>> keys;
  for (const auto& r : requirements) {
    auto key = clause_set(r.requirement.specifier);
    auto same = std::find(keys.begin(), keys.end(), key);
    if (same == keys.end()) {
      out.push_back(r);
      keys.push_back(std::move(key));
    } else {
      out[static_cast<size_t>(same - keys.begin())].where += ", " + r.where;
    }
  }
  return out;
}

std::vector<TorchRequirement> torch_requirements_in(std::string_view text, const std::string& file, bool lines) {
  std::vector<TorchRequirement> out;
  int line = 1;
  for (size_t i = 0; i < text.size(); ++i) {
    if (lines) {
      size_t end = text.find('\n', i);
      if (end == std::string_view::npos) end = text.size();
      std::string_view l = text.substr(i, end - i);
      if (auto hash = l.find('#'); hash != std::string_view::npos) l = l.substr(0, hash);
      add(l, file, line++, out);
      i = end;
      continue;
    }
    const char ch = text[i];
    if (ch == '\n') {
      ++line;
    } else if (ch == '#') {  // a comment to its line's end (Python and TOML alike)
      while (i + 1 < text.size() && text[i + 1] != '\n') ++i;
    } else if (ch == '"' || ch == '\'') {
      const size_t close = text.find(ch, i + 1);
      if (close == std::string_view::npos) break;
      const std::string_view literal = text.substr(i + 1, close - i - 1);
      if (literal.find('\n') == std::string_view::npos) add(literal, file, line, out);
      for (char c : literal) line += c == '\n';
      i = close;
    }
  }
  return out;
}

std::vector<TorchRequirement> read_torch_requirements(const io::Filesystem& fs, const std::string& project_dir) {
  std::vector<TorchRequirement> out;
  for (const auto& [name, lines] :
       {std::pair<const char*, bool>{"pyproject.toml", false}, {"setup.py", false}, {"requirements.txt", true}}) {
    const std::string path = project_dir + "/" + name;
    if (io::read_refusal(fs, path, io::kProjectFileMaxBytes)) continue;
    const auto text = fs.read(path);
    if (!text) continue;
    for (auto& r : torch_requirements_in(*text, name, lines)) out.push_back(std::move(r));
  }
  return out;
}

}  // namespace kiln::read
