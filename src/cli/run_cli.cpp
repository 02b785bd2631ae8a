#include <fmt/format.h>

#include "cli/command.hpp"
#include "run/exec_launcher.hpp"

namespace kiln::cli {

int run_cli(int argc, const char* const* argv, io::Seams& s) {
  // Invoked through a compiler link (BUILD/.kiln/bin/c++ or nvcc, see run::Plan::wrapper_dir):
  // run the launchers and the real compiler that KILN_WRAP_CXX / KILN_WRAP_NVCC name.
  if (argc >= 1) {
    const std::string_view self = argv[0];
    const std::string_view base = self.substr(self.find_last_of('/') + 1);
    const char* var = base == "c++" ? "KILN_WRAP_CXX" : base == "nvcc" ? "KILN_WRAP_NVCC" : nullptr;
    if (var) {
      auto wrap = s.env.get(var);
      if (!wrap || wrap->empty()) {
        s.err << "kiln: invoked as " << base << " without " << var << "; run it through kiln build\n";
        return kUsage;
      }
      std::vector<std::string> command;
      size_t start = 0;
      for (size_t sep; (sep = wrap->find('\x1f', start)) != std::string::npos; start = sep + 1)
        command.push_back(wrap->substr(start, sep - start));
      command.push_back(wrap->substr(start));
      for (int i = 1; i < argc; ++i) command.emplace_back(argv[i]);
      return run::exec_compiler(command, s);
    }
  }
  // `kiln exec -- compiler args...` is a compiler launcher: its arguments are the compiler's, so
  // they never go through the option parser.
  if (argc >= 2 && std::string_view(argv[1]) == "exec") {
    std::vector<std::string> command;
    for (int i = 2; i < argc; ++i)
      if (!(command.empty() && std::string_view(argv[i]) == "--")) command.emplace_back(argv[i]);
    if (command.empty()) {
      s.err << "kiln exec: error: no command given; usage: kiln exec -- COMPILER ARGS...\n";
      return kUsage;
    }
    return run::exec_compiler(command, s);
  }
  CLI::App app{"kiln: build PyTorch and CUDA extensions for the GPUs you run on", "kiln"};
  app.require_subcommand(0, 1);
  bool version = false;
  app.add_flag("--version", version, "Print the version and exit");
  // One schema for flags, environment (each option's envname) and file: a kiln.toml in the current
  // folder, or --config FILE, sets options by sub-command section ([build] jobs = 8).
  app.set_config("--config", "kiln.toml", "Read options from a TOML file, one [section] per command");
  auto commands = all_commands();
  std::vector<std::pair<CLI::App*, Command*>> subs;
  for (auto& c : commands) {
    CLI::App* sub = app.add_subcommand(c->name(), c->summary());
    c->setup(*sub);
    subs.emplace_back(sub, c.get());
  }
  try {
    app.parse(argc, argv);
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
    s.err << "kiln: error: " << e.what() << "\n";
    return kUsage;
  }
  if (version) {
    s.out << "kiln " << KILN_VERSION << "\n";
    return kOk;
  }
  for (auto& [sub, c] : subs) {
    if (!sub->parsed()) continue;
    try {
      return c->run(s);
    } catch (const UsageError& e) {
      s.err << "kiln " << c->name() << ": error: " << e.what() << "\n";
      return kUsage;
    } catch (const std::exception& e) {
      s.err << "kiln " << c->name() << ": error: " << e.what() << "\n";
      return kFindings;
    }
  }
  s.out << app.help();
  return kUsage;
}

}  // namespace kiln::cli
