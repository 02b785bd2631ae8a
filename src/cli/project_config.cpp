#include "cli/project_config.hpp"

#include <fmt/format.h>

#include <toml++/toml.h>

#include <filesystem>
#include <iterator>

#include "cli/command.hpp"
#include "cli/project_dir.hpp"
#include "core/text.hpp"
#include "report/build_folders.hpp"

namespace kiln::cli {

std::string absolute_folder(const std::string& dir) {
  std::error_code ec;
  auto abs = std::filesystem::absolute(dir.empty() ? "." : dir, ec);
  return core::without_trailing_slashes(ec ? dir : abs.lexically_normal().string());
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

namespace {

// A TOML value as CLI11 takes it: text, each element of an array its own input.
void add_inputs(const toml::node& node, std::vector<std::string>& out) {
  if (const auto* a = node.as_array()) {
    for (const auto& e : *a) add_inputs(e, out);
  } else if (const auto* v = node.as_string()) {
    out.push_back(v->get());
  } else if (const auto* v = node.as_integer()) {
    out.push_back(std::to_string(v->get()));
  } else if (const auto* v = node.as_floating_point()) {
    out.push_back(fmt::format("{}", v->get()));
  } else if (const auto* v = node.as_boolean()) {
    out.push_back(v->get() ? "true" : "false");
  }
}

}  // namespace

std::vector<CLI::ConfigItem> read_config_items(const std::string& text) {
  std::vector<CLI::ConfigItem> items;
  toml::parse_result parsed = toml::parse(text);
  if (!parsed) return items;  // check_config has said why
  for (const auto& [k, node] : parsed.table()) {
    if (const auto* section = node.as_table()) {
      for (const auto& [sk, value] : *section) {
        CLI::ConfigItem item{{std::string(k.str())}, std::string(sk.str()), {}};
        add_inputs(value, item.inputs);
        items.push_back(std::move(item));
      }
      items.push_back({{std::string(k.str())}, "--", {}});  // the end of a section, as CLI11 marks it
      continue;
    }
    CLI::ConfigItem item{{}, std::string(k.str()), {}};
    add_inputs(node, item.inputs);
    items.push_back(std::move(item));
  }
  return items;
}

std::vector<CLI::ConfigItem> SectionsConfig::from_config(std::istream& input) const {
  const std::string text((std::istreambuf_iterator<char>(input)), std::istreambuf_iterator<char>());
  auto items = read_config_items(text);
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
