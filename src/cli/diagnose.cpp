// kiln diagnose: read a build log (a file or stdin), name the root cause of the failure with the
// lines that prove it and the fix.
#include <fmt/format.h>

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iostream>

#include <nlohmann/json.hpp>

#include "cli/command.hpp"
#include "cli/json_out.hpp"
#include "diagnose/diagnoser.hpp"
#include "diagnose/render.hpp"
#include "read/gitmodules.hpp"
#include "read/project_headers.hpp"
#include "read/project_knobs.hpp"
#include "read/setup_py_source.hpp"

namespace kiln::cli {
namespace {

class DiagnoseCommand final : public Command {
public:
  const char* name() const override { return "diagnose"; }
  const char* summary() const override { return "Explain why a build failed, from its log: kiln diagnose [LOG|-]"; }
  void setup(CLI::App& app) override {
    app.add_option("log", log_, "Build log to read; - or nothing reads stdin")->default_val("-");
    app.add_flag("--all", all_, "List every distinct finding, not only the root cause");
    app.add_flag("--json", json_, "Print JSON");
    app.add_option("--project", project_,
                   "The project the log is from (default: the current folder when it has a "
                   "setup.py): fixes name its own switches, e.g. its force-build variable");
    app.add_option("--context", context_, "Show N log lines around each finding's first match")
        ->check(number_in(0, 50));
  }

  int run(io::Seams& s) override {
    diagnose::Options opts;
    opts.context = context_ ? *context_ : 2;
    if (auto pc = project_context(s)) opts.plan = std::move(*pc);
    diagnose::Diagnosis d;
    if (log_ == "-") {
      // Standard input that cannot be read must not pass for a clean log: closed, a folder, a
      // terminal nobody types into, or a read error are errors, and so is an empty log
      // (`kiln diagnose` in a CI step whose stdin is /dev/null would otherwise say "no failure").
      struct stat st {};
      if (::fstat(STDIN_FILENO, &st) != 0)
        throw UsageError(fmt::format("cannot read stdin: {}; give the log file, or pipe the build into kiln diagnose",
                                     std::strerror(errno)));
      if (S_ISDIR(st.st_mode)) throw UsageError("stdin is a directory; give a log file or pipe the build's output");
      if (::isatty(STDIN_FILENO))
        throw UsageError(
            "stdin is a terminal; give the log file (kiln diagnose build.log) or pipe it (make 2>&1 | kiln diagnose)");
      d = diagnose::diagnose_stream(std::cin, opts);
      if (std::cin.bad()) throw UsageError(fmt::format("error reading stdin: {}", std::strerror(errno)));
      if (d.bytes == 0)
        throw UsageError(
            "stdin was empty: nothing to diagnose; give the log file, or pipe the build's output with 2>&1");
    } else {
      // Streamed, not read whole: build logs reach gigabytes.
      if (s.fs.is_directory(log_))
        throw UsageError(fmt::format("'{}' is a directory; give a log file or - for stdin", log_));
      std::ifstream in(log_, std::ios::binary);
      if (!in) throw UsageError(fmt::format("cannot read '{}': {}", log_, std::strerror(errno)));
      d = diagnose::diagnose_stream(in, opts);
      if (in.bad()) throw UsageError(fmt::format("error reading '{}': {}", log_, std::strerror(errno)));
      if (d.bytes == 0) throw UsageError(fmt::format("'{}' is empty: nothing to diagnose", log_));
    }
    if (json_) {
      print_json(s.out, "diagnose", diagnose::to_json(d, log_));
    } else {
      diagnose::render_text(s.out, d, log_, {all_, context_.has_value()});
    }
    return d.failed() ? kFindings : kOk;
  }

private:
  // What the project tells the fixes: its own force-build switch (NAME=VALUE) read from its
  // setup.py, its empty git submodules (a missing header one of them should hold) and the headers
  // it holds (a missing header that is there: the include path does not reach it). Its setup.py's
  // text (the line of a setup.py frame Python printed without it) only from a project named or
  // recorded: a line from the setup.py of whatever folder kiln runs in could be another project's.
  std::optional<diagnose::PlanContext> project_context(io::Seams& s) const {
    const std::optional<std::string> known = project_.empty() ? recorded_project(s.fs) : std::optional(project_);
    std::string dir = known.value_or(".");
    if (!project_.empty() && !s.fs.is_directory(dir))
      throw UsageError("--project '" + project_ + "' is not a directory");
    diagnose::PlanContext pc;
    pc.empty_submodules = read::empty_submodules(s.fs, dir);
    if (s.fs.exists(dir + "/setup.py")) {
      auto kp = read::decide_knobs(read::read_project(s.fs, dir, false), {});
      for (const auto& k : kp.knobs)
        if (k.role == read::knob_roles::kForceBuild && !k.on_value.empty() && pc.force_build.empty())
          pc.force_build = k.name + "=" + k.on_value;
    }
    pc.project_headers = read::project_headers(s.fs, dir);
    if (known) pc.setup_py = read::setup_py_source(s.fs, dir);
    if (pc.force_build.empty() && pc.empty_submodules.empty() && pc.project_headers.empty() && pc.setup_py.empty())
      return std::nullopt;
    return pc;
  }

  // A log in kiln's build folder (BUILD/kiln-build.log): the project its record names, so the
  // diagnosis run from anywhere reads that project's switches and submodules.
  std::optional<std::string> recorded_project(const io::Filesystem& fs) const {
    if (log_ == "-") return std::nullopt;
    const auto slash = log_.rfind('/');
    const std::string record =
        (slash == std::string::npos ? std::string(".") : log_.substr(0, slash)) + "/kiln-build.json";
    if (io::read_refusal(fs, record, io::kBuildRecordMaxBytes)) return std::nullopt;
    const auto text = fs.read(record);
    if (!text) return std::nullopt;
    const auto j = nlohmann::json::parse(*text, nullptr, false);
    if (!j.is_object() || !j.contains("project_dir") || !j["project_dir"].is_string()) return std::nullopt;
    std::string dir = j["project_dir"].get<std::string>();
    if (dir.empty() || dir.front() != '/' || !fs.is_directory(dir)) return std::nullopt;
    return dir;
  }

  std::string project_;
  std::string log_ = "-";
  bool all_ = false;
  bool json_ = false;
  std::optional<int> context_;
};

}  // namespace

std::unique_ptr<Command> make_diagnose() { return std::make_unique<DiagnoseCommand>(); }

}  // namespace kiln::cli
