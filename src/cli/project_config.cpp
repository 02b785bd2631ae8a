#include "cli/project_config.hpp"

#include <filesystem>

#include "cli/command.hpp"
#include "cli/project_dir.hpp"
#include "report/build_folders.hpp"

namespace kiln::cli {

std::string absolute_folder(const std::string& dir) {
  std::error_code ec;
  auto abs = std::filesystem::absolute(dir.empty() ? "." : dir, ec);
  std::string out = ec ? dir : abs.lexically_normal().string();
  while (out.size() > 1 && out.back() == '/') out.pop_back();
  return out;
}

std::string default_config_path(const std::vector<std::string>& args, const std::string& command, const io::Seams& s) {
  for (auto& c : all_commands()) {
    if (c->name() != command) continue;
    CLI::App app;
    CLI::App* sub = app.add_subcommand(c->name());
    declare(*c, *sub);
    // Only DIR and --example are wanted: no variable is read, and a bad option is the real parse's to report.
    for (CLI::Option* o : sub->get_options()) o->envname("");
    sub->allow_extras();
    std::vector<std::string> argv{"kiln"};
    for (const auto& a : args) argv.push_back(a);
    std::vector<const char*> cargv;
    for (const auto& a : argv) cargv.push_back(a.c_str());
    try {
      app.parse(static_cast<int>(cargv.size()), cargv.data());
    } catch (const std::exception&) {}
    const auto project = c->project_arg();
    if (!project) break;
    if (project->build_folder) {
      const auto dir = report::find_build_folders(s.fs, absolute_folder(project->dir)).project_dir;
      return dir.empty() ? "kiln.toml" : dir + "/kiln.toml";
    }
    try {
      return resolve_project_dir(project->dir, s, project->example).dir + "/kiln.toml";
    } catch (const std::exception&) {}
  }
  return "kiln.toml";
}

std::vector<CLI::ConfigItem> SectionsConfig::from_config(std::istream& input) const {
  auto items = CLI::ConfigTOML::from_config(input);
  const auto sections = config_sections(command_);
  std::set<std::string> given;  // keys already given by a more specific section
  std::vector<CLI::ConfigItem> copies;
  for (const auto& section : sections) {
    std::set<std::string> here;
    for (const auto& item : items) {
      if (item.parents != std::vector<std::string>{section} || item.name == "++" || item.name == "--") continue;
      if (!keys_.count(item.name) || given.count(item.name)) continue;
      here.insert(item.name);
      if (section == command_) continue;  // CLI11 gives the command its own section
      auto copy = item;
      copy.parents = {command_};
      copies.push_back(std::move(copy));
    }
    given.insert(here.begin(), here.end());
  }
  items.insert(items.end(), copies.begin(), copies.end());
  return items;
}

}  // namespace kiln::cli
