#include "cli/setting_source.hpp"

#include <fmt/format.h>

#include "cli/config_file.hpp"

namespace kiln::cli {

namespace {

bool on_command_line(const std::vector<std::string>& args, const std::string& flag) {
  for (const auto& a : args) {
    if (a == "--") break;
    if (a == flag || a.rfind(flag + "=", 0) == 0) return true;
    if (flag.size() == 2 && flag[1] != '-' && a.size() > 2 && a.rfind(flag, 0) == 0) return true;  // -j8
  }
  return false;
}

}  // namespace

std::string setting_source(const SettingOrigins& o, const io::Environment& env, const std::vector<std::string>& flags,
                           const std::string& env_name) {
  std::string key;
  for (const auto& f : flags) {
    if (on_command_line(o.args, f)) return f;
    if (f.rfind("--", 0) == 0) key = f.substr(2);
  }
  if (!o.config_path.empty() && !key.empty())
    for (const auto& section : config_sections(o.section))
      if (auto line = config_line(o.config_text, section, key)) return fmt::format("{}:{}", o.config_path, *line);
  if (!env_name.empty() && env.get(env_name) && !env.get(env_name)->empty()) return env_name;
  return {};
}

}  // namespace kiln::cli
