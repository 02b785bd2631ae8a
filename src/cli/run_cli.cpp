#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "cli/command.hpp"
#include "cli/config_file.hpp"
#include "cli/json_out.hpp"
#include "cli/project_config.hpp"
#include "core/launcher_env.hpp"
#include "core/spelling.hpp"
#include "launch/exec_launcher.hpp"
#include "launch/plan_weights.hpp"

namespace kiln::cli {
namespace {

// --json anywhere before the end-of-options marker (or plan's --emit json) asks for JSON, errors included.
bool wants_json(const std::vector<std::string>& args) {
  for (size_t i = 0; i < args.size() && args[i] != "--"; ++i)
    if (args[i] == "--json" || args[i] == "--emit=json" ||
        (args[i] == "--emit" && i + 1 < args.size() && args[i + 1] == "json"))
      return true;
  return false;
}

// Every long and short name of the options of `app`, with their dashes.
std::vector<std::string> option_names(const CLI::App& app) {
  std::vector<std::string> names;
  for (const CLI::Option* o : app.get_options()) {
    if (o->get_group().empty()) continue;  // hidden
    for (const auto& l : o->get_lnames()) names.push_back("--" + l);
    for (const auto& s : o->get_snames()) names.push_back("-" + s);
  }
  return names;
}

// Config keys a [section] accepts: the option's long names and, for positionals, their name.
std::vector<std::string> config_keys(const CLI::App& app) {
  std::vector<std::string> keys;
  for (const CLI::Option* o : app.get_options()) {
    if (o->get_group().empty() || o->get_lnames() == std::vector<std::string>{"help"}) continue;
    for (const auto& l : o->get_lnames()) keys.push_back(l);
    if (o->get_lnames().empty() && o->get_snames().empty()) keys.push_back(o->get_name());
  }
  return keys;
}

// Only the command run reads its environment variables and its [section] of the config file: a bad
// KILN_JOBS or `[build] jobs = 0` must not break `kiln --version`, `gpus` or `inspect`. (CLI11
// reads both into every sub-command; the config file was checked whole by check_config.)
void detach_settings(CLI::App& sub) {
  sub.allow_config_extras(CLI::config_extras_mode::ignore_all);
  for (CLI::Option* o : sub.get_options()) o->envname("")->configurable(false);
}

// A bad value that came from the config file or the environment names it ("(from KILN_JOBS)").
std::string source_hint(const std::string& what, const CLI::App& sub, const SettingOrigins& origins,
                        const io::Environment& env) {
  for (const CLI::Option* o : sub.get_options()) {
    std::vector<std::string> flags;
    for (const auto& l : o->get_lnames()) flags.push_back("--" + l);
    for (const auto& s : o->get_snames()) flags.push_back("-" + s);
    bool named = false;
    for (const auto& f : flags) named = named || what.find(f) != std::string::npos;
    if (!named) continue;
    const std::string from = setting_source(origins, env, flags, o->get_envname());
    if (!from.empty() && std::find(flags.begin(), flags.end(), from) == flags.end()) return " (from " + from + ")";
  }
  return {};
}

// Reads and checks the config file (--config FILE, else `fallback` when there is one) into
// `origins`; the usage error, if any. size() is a stat that fails for anything but a regular file:
// a FIFO would block the read, /dev/zero would never end.
std::optional<std::string> load_config(const std::string& given, const std::string& fallback, const io::Filesystem& fs,
                                       const std::map<std::string, std::vector<std::string>>& keys,
                                       SettingOrigins& origins) {
  const std::string path = given.empty() ? fallback : given;
  if (given.empty() && !fs.exists(path)) return std::nullopt;
  const auto bytes = fs.size(path);
  if (!bytes && !fs.exists(path)) return fmt::format("--config {}: cannot read the file", path);
  if (!bytes || fs.is_directory(path)) {  // ./kiln.toml that is not a file is not kiln's: left alone
    if (given.empty()) return std::nullopt;
    return fmt::format("{}: not a regular file; give a TOML file", path);
  }
  if (*bytes > kConfigMaxBytes)
    return fmt::format("{}: {} bytes, more than a config file's {}; give a TOML file", path, *bytes, kConfigMaxBytes);
  auto text = fs.read_head(path, kConfigMaxBytes);
  if (!text)
    return given.empty() ? std::nullopt
                         : std::optional<std::string>(fmt::format("--config {}: cannot read the file", path));
  origins.config_path = path;
  origins.config_text = *text;
  if (auto bad = check_config(path, *text, keys)) return bad;
  // A kiln.toml found in the project (or the current folder) is the project's: it chooses options,
  // never the programs kiln runs while reading it. --config FILE is the user's own.
  return given.empty() ? refuse_programs(path, *text) : std::nullopt;
}

struct Parsed {
  std::vector<std::string> args;  // argv[1..] with --config moved in front of the command
  std::vector<std::string> tail;  // after `--`, for a command that takes it raw
  std::string command;            // the sub-command named, if any
  std::string config;             // --config FILE, if given
};

using Subcommands = std::vector<std::pair<CLI::App*, Command*>>;

// Compiles, before any option parsing: kiln invoked through a compiler link, or `kiln exec`.
// nullopt when this is not a compile.
std::optional<int> run_compile(int argc, const char* const* argv, io::Seams& s) {
  // Invoked through a compiler link (BUILD/.kiln/bin/c++ or nvcc, see plan::Plan::wrapper_dir):
  // run the launchers and the real compiler that KILN_WRAP_CXX / KILN_WRAP_NVCC name.
  if (argc >= 1) {
    const std::string_view self = argv[0];
    const std::string_view base = self.substr(self.find_last_of('/') + 1);
    namespace vars = core::launcher_vars;
    const std::string_view var = base == "c++" ? vars::kWrapCxx : base == "nvcc" ? vars::kWrapNvcc : "";
    if (!var.empty()) {
      const auto kiln = core::LauncherEnv::from_env(s.env);
      const std::string* wrap = var == vars::kWrapCxx ? &kiln.wrap_cxx : &kiln.wrap_nvcc;
      if (wrap->empty()) {
        s.err << "kiln: invoked as " << base << " without " << var << "; run it through kiln build\n";
        return kUsage;
      }
      std::vector<std::string> command;
      size_t start = 0;
      for (size_t sep; (sep = wrap->find('\x1f', start)) != std::string::npos; start = sep + 1)
        command.push_back(wrap->substr(start, sep - start));
      command.push_back(wrap->substr(start));
      for (int i = 1; i < argc; ++i) command.emplace_back(argv[i]);
      return launch::exec_compiler(command, s);
    }
  }
  // `kiln exec -- compiler args...` is a compiler launcher: its arguments are the compiler's, so
  // they never go through the option parser.
  if (argc >= 2 && std::string_view(argv[1]) == "exec") {
    // The order of an extension's units, for kiln's own helper (launch/plan_weights.hpp).
    if (argc >= 3 && std::string_view(argv[2]) == "--weigh") {
      if (argc != 4) {
        s.err << "kiln exec --weigh: error: usage: kiln exec --weigh PLAN_FILE\n";
        return kUsage;
      }
      return launch::weigh_plan_command(argv[3], s);
    }
    std::vector<std::string> command;
    for (int i = 2; i < argc; ++i)
      if (!(command.empty() && std::string_view(argv[i]) == "--")) command.emplace_back(argv[i]);
    if (command.empty()) {
      s.err << "kiln exec: error: no command given; usage: kiln exec -- COMPILER ARGS...\n";
      return kUsage;
    }
    return launch::exec_compiler(command, s);
  }
  return std::nullopt;
}

// A global option may follow the sub-command (`kiln build --config ci.toml`), as with git -C:
// it is moved in front of it. After `--` nothing is touched, and a command that takes the rest raw gets it.
Parsed move_globals(int argc, const char* const* argv, const Subcommands& subs,
                    const std::vector<std::string>& command_names) {
  Parsed p;
  std::vector<std::string> in(argv + 1, argv + argc), globals;
  bool dashes = false;
  for (size_t i = 0; i < in.size(); ++i) {
    const std::string& a = in[i];
    if (dashes) {
      p.args.push_back(a);
      continue;
    }
    if (a == "--") {
      dashes = true;
      auto it = std::find(command_names.begin(), command_names.end(), p.command);
      if (it != command_names.end() && subs[it - command_names.begin()].second->wants_raw_tail()) {
        p.tail.assign(in.begin() + static_cast<long>(i) + 1, in.end());
        break;
      }
      p.args.push_back(a);
      continue;
    }
    if (a == "--config" && i + 1 < in.size()) {
      p.config = in[i + 1];
      globals.push_back(a), globals.push_back(in[++i]);
      continue;
    }
    if (a.rfind("--config=", 0) == 0) {
      p.config = a.substr(9);
      globals.push_back(a);
      continue;
    }
    if (p.command.empty() && !a.empty() && a.front() != '-' &&
        std::find(command_names.begin(), command_names.end(), a) != command_names.end())
      p.command = a;
    p.args.push_back(a);
  }
  p.args.insert(p.args.begin(), globals.begin(), globals.end());
  return p;
}

struct ParseFailure {
  std::string command, message;  // command: "" for an unknown command (no command's error)
};

// A parse error with a did-you-mean: a mistyped command (the whole message), else a mistyped
// option of the command named (appended to CLI11's message).
ParseFailure parse_failure(const Parsed& p, CLI::App& app, const Subcommands& subs,
                           const std::vector<std::string>& command_names, const std::string& what) {
  if (p.command.empty()) {
    for (const auto& a : p.args) {
      if (a == "--") break;
      if (a.empty() || a.front() == '-') continue;
      if (auto c = core::closest(a, command_names))
        return {"", fmt::format("unknown command '{}'; did you mean '{}'?", a, *c)};
      return {"", fmt::format("unknown command '{}'; the commands are: {}", a, fmt::join(command_names, ", "))};
    }
  }
  CLI::App* where = &app;
  for (auto& [sub, c] : subs)
    if (c->name() == p.command) where = sub;
  auto known = option_names(*where);
  for (const auto& o : option_names(app)) known.push_back(o);
  for (const auto& a : p.args) {
    if (a == "--") break;
    if (a.size() < 2 || a.front() != '-') continue;
    const std::string name = a.substr(0, a.find('='));
    if (std::find(known.begin(), known.end(), name) != known.end()) continue;
    if (name.rfind("--", 0) != 0) continue;  // -j8, -DKEY=V: short options carry values; one letter suggests nothing
    if (auto c = core::closest(name, known))
      return {p.command, what + fmt::format(" (unknown option '{}'; did you mean '{}'?)", name, *c)};
    break;
  }
  return {p.command, what};
}

}  // namespace

int run_cli(int argc, const char* const* argv, io::Seams& s) {
  if (auto compiled = run_compile(argc, argv, s)) return *compiled;
  // `kiln help [COMMAND]` and `kiln version`, as git and go spell them.
  std::vector<std::string> words(argv, argv + argc);
  if (words.size() >= 2 && (words[1] == "help" || words[1] == "version")) {
    const bool help = words[1] == "help";
    words.erase(words.begin() + 1);
    words.insert(words.begin() + (help && words.size() >= 2 ? 2 : 1), help ? "--help" : "--version");
  }
  std::vector<const char*> wargv;
  for (const auto& w : words) wargv.push_back(w.c_str());
  argc = static_cast<int>(wargv.size());
  argv = wargv.data();
  CLI::App app{"kiln: build PyTorch and CUDA extensions for the GPUs you run on", "kiln"};
  app.require_subcommand(0, 1);
  bool version = false;
  app.add_flag("-V,--version", version, "Print the version and exit");
  // One schema for flags, environment (each option's envname) and file: the project's kiln.toml for
  // the commands that work on a project (plan, build, bench, report), ./kiln.toml for the others, or --config FILE,
  // sets options by sub-command section
  // ([build] jobs = 8); plan reads [build] too (project_config).
  const char* config_help = "Read options from a TOML file, one [section] per command (default: DIR/kiln.toml)";
  app.set_config("--config", "kiln.toml", config_help);
  auto commands = all_commands();
  Subcommands subs;
  std::vector<std::string> command_names;
  for (auto& c : commands) {
    CLI::App* sub = app.add_subcommand(c->name(), c->summary());
    declare(*c, *sub);
    subs.emplace_back(sub, c.get());
    command_names.emplace_back(c->name());
  }
  const Parsed p = move_globals(argc, argv, subs, command_names);
  const bool json = wants_json(p.args);
  auto fail = [&](const std::string& command, int code, const std::string& message) {
    s.err << "kiln" << (command.empty() ? "" : " " + command) << ": error: " << message << "\n";
    if (json) print_json(s.out, "error", error_json(command, code, message));
    return code;
  };

  // The config file, checked before CLI11 reads it (which would skip what it does not understand).
  SettingOrigins origins;
  origins.args = p.args;
  origins.section = p.command;
  std::map<std::string, std::vector<std::string>> keys{{"", {}}};
  for (auto& [sub, c] : subs) keys[c->name()] = config_keys(*sub);
  const std::string fallback = p.config.empty() ? default_config_path(p.args, p.command, s) : "kiln.toml";
  app.set_config("--config", fallback, config_help);
  const auto& own = keys[p.command];
  app.config_formatter(std::make_shared<SectionsConfig>(p.command, std::set<std::string>(own.begin(), own.end())));
  if (auto err = load_config(p.config, fallback, s.fs, keys, origins)) return fail(p.command, kUsage, *err);

  for (auto& [sub, c] : subs)
    if (c->name() != p.command) detach_settings(*sub);

  std::vector<const char*> cargv{argv[0]};
  for (const auto& a : p.args) cargv.push_back(a.c_str());
  try {
    app.parse(static_cast<int>(cargv.size()), cargv.data());
  } catch (const CLI::CallForHelp& e) {
    // The help of the command asked about, else kiln's own.
    for (auto& [sub, c] : subs)
      if (sub->parsed()) {
        s.out << sub->help();
        return kOk;
      }
    s.out << app.help("", CLI::AppFormatMode::Normal);
    return kOk;
  } catch (const CLI::CallForAllHelp& e) {
    s.out << app.help("", CLI::AppFormatMode::All);
    return kOk;
  } catch (const CLI::ParseError& e) {
    // CLI11's "The following arguments were not expected: a b", in kiln's words.
    std::string what = e.what();
    if (dynamic_cast<const CLI::ExtrasError*>(&e)) {
      const auto colon = what.find(": ");
      what = fmt::format(
          "unexpected argument{} '{}'; see kiln{} --help", what.find("arguments") != std::string::npos ? "s" : "",
          colon == std::string::npos ? what : what.substr(colon + 2), p.command.empty() ? "" : " " + p.command);
    }
    auto f = parse_failure(p, app, subs, command_names, what);
    if (f.command.empty()) return fail("", kUsage, f.message);
    CLI::App* where = &app;
    for (auto& [sub, c] : subs)
      if (c->name() == p.command) where = sub;
    // Where a bad value came from (file:line, variable), when CLI11's message names an option.
    return fail(p.command, kUsage, f.message + source_hint(e.what(), *where, origins, s.env));
  }
  if (version) {
    s.out << "kiln " << KILN_VERSION << "\n";
    return kOk;
  }
  for (auto& [sub, c] : subs) {
    if (!sub->parsed()) continue;
    c->raw_tail = p.tail;
    c->origins = origins;
    try {
      return c->run(s);
    } catch (const UsageError& e) {
      return fail(c->name(), kUsage, e.what());
    } catch (const std::exception& e) {
      return fail(c->name(), kFindings, e.what());
    }
  }
  s.out << app.help();
  return kUsage;
}

}  // namespace kiln::cli
