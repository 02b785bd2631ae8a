#pragma once
// One step of a build (configure, build, install, unpack): run its argv in the project folder with
// the build's environment, its output into the log and the progress sink, Ninja's status lines
// read for progress, and its failure written into the outcome. Every driver runs its tools here.
#include <chrono>
#include <functional>
#include <map>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "drive/driver.hpp"

namespace kiln::drive {

class StepRunner {
public:
  StepRunner(io::Seams& s, std::map<std::string, std::string> env, std::string cwd, std::ostream& log,
             const ProgressSink& progress, BuildOutcome& o);

  struct Result {
    bool ok = false;
    std::chrono::milliseconds took{0};
  };
  // `ninja`: the step prints Ninja's status lines (the build step), counted into o.steps_run and
  // its peak memory into o.build_peak_rss_kib.
  Result run(const char* name, const std::vector<std::string>& argv, bool ninja);

  // What the running step's output tells kiln itself (the backend names its wheel); null: nothing.
  void watch(std::function<void(std::string_view)> w) { watch_ = std::move(w); }

  // A stop signal arrived (Ctrl-C, SIGTERM): the next step must not start.
  bool interrupted() const;

private:
  io::Seams& s_;
  std::map<std::string, std::string> env_;
  std::string cwd_;
  std::ostream& log_;
  const ProgressSink& progress_;
  BuildOutcome& o_;
  std::function<void(std::string_view)> watch_;
};

}  // namespace kiln::drive
