#pragma once
// A sub-command: it declares its options on a CLI11 sub-app and runs against the I/O seams.
// One file per command under src/cli/; registry.cpp lists them.
#include <CLI/CLI.hpp>

#include <limits>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "cli/setting_source.hpp"
#include "io/seams.hpp"

namespace kiln::cli {

enum ExitCode { kOk = 0, kFindings = 1, kUsage = 2 };

// Thrown for bad input the user can fix (a malformed arch list, an unknown GPU): exit 2.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};
// Thrown when the command could not do its job (a missing tool, an unreadable file): exit 1.
struct Failure : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class Command {
public:
  virtual ~Command() = default;
  virtual const char* name() const = 0;
  virtual const char* summary() const = 0;
  virtual void setup(CLI::App& app) = 0;
  virtual int run(io::Seams& s) = 0;
  // A command whose arguments may start with '-' (archs: nvcc flags) takes everything after the
  // end-of-options marker `--` as it is; run_cli puts it in raw_tail instead of parsing it.
  virtual bool wants_raw_tail() const { return false; }
  std::vector<std::string> raw_tail;
  // A command that works on a project (plan, build, bench; report through a build folder): the DIR
  // and --example it was given, so that its config file is the project's own kiln.toml
  // (project_config). nullopt for the others.
  struct ProjectArg {
    std::string dir;
    bool example = false;
    bool build_folder = false;  // DIR is a build folder (report): the project is the one its record names
  };
  virtual std::optional<ProjectArg> project_arg() const { return std::nullopt; }
  // Where each setting could come from (command line, config file, environment), set by run_cli.
  SettingOrigins origins;
};

std::vector<std::unique_ptr<Command>> all_commands();

// c.setup(app), then one rule for every option of every command: an option takes one value per
// flag (`--gpu a --gpu b`; a list option may also split on commas), so a value never swallows the
// positional that follows it (`kiln plan --gpu h100 .`).
void declare(Command& c, CLI::App& app);

// A number from lo to hi (whole unless `whole` is false), refused in kiln's words ("--top 0: give a
// whole number 1 or more") rather than CLI11's ("Value 0 not in range 0.000000 to 1797693...").
CLI::Validator number_in(double lo, double hi = std::numeric_limits<double>::infinity(), bool whole = true);

// The same answer from every command for paths that are not there: a usage error (exit 2) naming
// them, "'a', 'b': no such file or folder" (issue 33; inspect, verify and report had exited 1).
void refuse_missing_paths(const io::Filesystem& fs, const std::vector<std::string>& paths);

// Parses argv, runs the chosen command and maps errors to exit codes. Messages go to s.err as
// "kiln: error: ...".
int run_cli(int argc, const char* const* argv, io::Seams& s);

}  // namespace kiln::cli
