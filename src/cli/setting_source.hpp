#pragma once
// Where an option's value came from, so that a bad value names its source ("KILN_JOBS",
// "kiln.toml:3", "--jobs") and a forced setting says who forced it. CLI11 reads the command line
// first, then the config file's [command] section, then the environment (an option's envname).
#include <string>
#include <vector>

#include "io/environment.hpp"

namespace kiln::cli {

struct SettingOrigins {
  std::vector<std::string> args;  // the command line, as given (before `--`)
  std::string section;            // the command run: its [section] of the config file
  std::string config_path;        // the config file read ("" none)
  std::string config_text;
};

// `flags`: the option's names with dashes ("-j", "--jobs"); `env`: its variable ("" none).
// Returns "--jobs", "kiln.toml:3" or "KILN_JOBS"; "" when none of them gave it.
std::string setting_source(const SettingOrigins& o, const io::Environment& env, const std::vector<std::string>& flags,
                           const std::string& env_name);

}  // namespace kiln::cli
