#include "cli/config_file.hpp"

#include <fmt/format.h>

#include <toml++/toml.h>

#include "core/spelling.hpp"

namespace kiln::cli {
namespace {

std::string typo_hint(const std::string& typed, const std::vector<std::string>& names) {
  auto c = core::closest(typed, names);
  return c ? fmt::format("; did you mean '{}'?", *c) : std::string();
}

}  // namespace

std::optional<std::string> check_config(const std::string& path, const std::string& text,
                                        const std::map<std::string, std::vector<std::string>>& options) {
  toml::parse_result parsed = toml::parse(text, std::string_view(path));
  if (!parsed) {
    const auto& err = parsed.error();
    return fmt::format("{}:{}: {}", path, err.source().begin.line, err.description());
  }
  const toml::table& root = parsed.table();
  std::vector<std::string> sections;
  for (const auto& [name, _] : options)
    if (!name.empty()) sections.push_back(name);
  const auto top = options.find("");
  for (const auto& [k, node] : root) {
    const std::string key(k.str());
    const unsigned line = node.source().begin.line ? node.source().begin.line : k.source().begin.line;
    if (const auto* section = node.as_table()) {
      auto it = options.find(key);
      if (it == options.end() || key.empty())
        return fmt::format("{}:{}: [{}] is not a kiln command{}", path, line, key, typo_hint(key, sections));
      for (const auto& [sk, value] : *section) {
        const std::string name(sk.str());
        if (std::find(it->second.begin(), it->second.end(), name) == it->second.end())
          return fmt::format("{}:{}: key '{}' is not an option of kiln {}{}", path, sk.source().begin.line, name, key,
                             typo_hint(name, it->second));
        if (value.is_table())
          return fmt::format("{}:{}: key '{}' of [{}] is a table; give a value (string, number, boolean or array)",
                             path, sk.source().begin.line, name, key);
      }
      continue;
    }
    const bool known =
        top != options.end() && std::find(top->second.begin(), top->second.end(), key) != top->second.end();
    if (!known)
      return fmt::format("{}:{}: key '{}' is outside any [command] section; put it under one, e.g. [build]{}", path,
                         k.source().begin.line, key, typo_hint(key, sections));
  }
  return std::nullopt;
}

std::optional<std::string> refuse_programs(const std::string& path, const std::string& text) {
  toml::parse_result parsed = toml::parse(text);
  if (!parsed) return std::nullopt;  // check_config reports it
  for (const auto& [section, node] : parsed.table()) {
    const auto* table = node.as_table();
    if (!table) continue;
    for (const auto& [k, _] : *table)
      if (k.str() == "python")
        return fmt::format(
            "{}:{}: [{}] python names a program, and a project's kiln.toml may choose options, "
            "never the programs kiln runs; pass --python PATH or set PYTHON, or put it in your "
            "own file given with --config",
            path, k.source().begin.line, section.str());
  }
  return std::nullopt;
}

std::vector<std::string> config_sections(const std::string& command) {
  if (command == "plan") return {"plan", "build"};
  return {command};
}

std::optional<unsigned> config_line(const std::string& text, const std::string& section, const std::string& key) {
  toml::parse_result parsed = toml::parse(text);
  if (!parsed) return std::nullopt;
  const auto* table = parsed.table()[section].as_table();
  if (!table) return std::nullopt;
  for (const auto& [k, node] : *table)
    if (k.str() == key) return k.source().begin.line ? k.source().begin.line : node.source().begin.line;
  return std::nullopt;
}

}  // namespace kiln::cli
