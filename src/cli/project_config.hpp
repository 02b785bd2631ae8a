#pragma once
// Which kiln.toml a command reads, and which of its sections: the one owner of "the project's config".
// A command that works on a project (Command::project_arg: plan, build, bench; report, whose build
// folder's record names its project) reads that project's kiln.toml (DIR/kiln.toml), wherever kiln
// runs from; the other commands read ./kiln.toml. `kiln plan` reads [build] under its own [plan], so
// that the plan shown is the build's plan.
#include <CLI/CLI.hpp>

#include <set>
#include <string>
#include <vector>

#include "cli/config_file.hpp"
#include "io/seams.hpp"

namespace kiln::cli {

// The config file `command` reads when no --config is given: DIR/kiln.toml for a command that takes a
// project (DIR read from `args` by a first parse that reads no setting; for a build folder, the
// project its record names), else "kiln.toml".
std::string default_config_path(const std::vector<std::string>& args, const std::string& command, const io::Seams& s);

// `dir` made absolute and normal, with no trailing '/' ("" is the current folder).
std::string absolute_folder(const std::string& dir);

// kiln.toml's items as CLI11 takes them, read by toml++ (the reader that checked the file), never
// by CLI11's own line reader, which cut values at '#' ("B=two#three" became "B=tw") and dropped
// array elements after it (issue 34, case 7).
std::vector<CLI::ConfigItem> read_config_items(const std::string& text);

// kiln.toml read by read_config_items, plus the sections rule: the keys of every section `command` reads that its own
// options accept are given to it, the most specific section winning.
class SectionsConfig final : public CLI::ConfigTOML {
public:
  SectionsConfig(std::string command, std::set<std::string> keys)
      : command_(std::move(command)), keys_(std::move(keys)) {}
  std::vector<CLI::ConfigItem> from_config(std::istream& input) const override;

private:
  std::string command_;
  std::set<std::string> keys_;
};

}  // namespace kiln::cli
