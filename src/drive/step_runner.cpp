#include "drive/step_runner.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "core/text.hpp"
#include "drive/project_progress.hpp"
#include "io/interrupt.hpp"

namespace kiln::drive {
namespace {

std::chrono::milliseconds since(const io::Clock& clock, std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(clock.now() - t0);
}

}  // namespace

StepRunner::StepRunner(io::Seams& s, std::map<std::string, std::string> env, std::string cwd, std::ostream& log,
                       const ProgressSink& progress, BuildOutcome& o)
    : s_(s), env_(std::move(env)), cwd_(std::move(cwd)), log_(log), progress_(progress), o_(o) {}

bool StepRunner::interrupted() const { return io::BuildInterrupts::received() != 0; }

StepRunner::Result StepRunner::run(const char* name, const std::vector<std::string>& argv, bool ninja) {
  // A stop that came between steps (while hashing, storing, verifying) starts nothing new.
  if (int sig = io::BuildInterrupts::received()) {
    log_ << "kiln: " << name << ": not started: stopped by " << io::signal_name(sig) << "\n";
    o_.failed_step = name;
    o_.exit_code = 128 + sig;
    return {false, std::chrono::milliseconds(0)};
  }
  log_ << "kiln: " << name << ": " << core::join(argv, " ") << "\n";
  log_.flush();
  const auto t0 = s_.clock.now();
  io::ProcessSpec spec{.argv = argv, .env = env_, .cwd = cwd_};
  spec.new_process_group = true;
  ProjectProgress project;  // several extensions' Ninjas at once add up to one status
  spec.on_line = [&](std::string_view line) {
    log_ << line << "\n";
    if (watch_) watch_(line);
    if (ninja) {
      auto fed = project.feed(line);
      if (fed.status) {
        o_.steps_run = fed.status->total;
        if (progress_.on_status) progress_.on_status(*fed.status, since(s_.clock, t0));
        return;
      }
      if (fed.consumed) return;
    }
    if (progress_.on_output) progress_.on_output(line);
  };
  if (progress_.on_step) progress_.on_step(name, true);
  auto r = s_.proc.run(spec);
  if (progress_.on_step) progress_.on_step(name, false);
  log_.flush();
  if (r.orphans_killed > 0)
    log_ << fmt::format("kiln: {}: {} process{} left running by the step killed (its tool ended before its jobs)\n",
                        name, r.orphans_killed, r.orphans_killed == 1 ? "" : "es");
  o_.peak_rss_kib = std::max(o_.peak_rss_kib, r.peak_rss_kib);
  if (ninja) o_.build_peak_rss_kib = r.peak_rss_kib;
  if (!r.started) {
    log_ << "kiln: could not start " << argv[0] << ": " << r.spawn_error << "\n";
    o_.failed_step = name;
    o_.exit_code = 127;
    return {false, std::chrono::milliseconds(0)};
  }
  const auto took = since(s_.clock, t0);
  if (!r.ok()) {
    o_.failed_step = name;
    o_.exit_code = r.exit_code;
    o_.term_signal = r.term_signal;
    log_ << fmt::format("kiln: {} failed ({})\n", name,
                        r.term_signal ? fmt::format("signal {}", r.term_signal) : fmt::format("exit {}", r.exit_code));
    return {false, took};
  }
  return {true, took};
}

}  // namespace kiln::drive
