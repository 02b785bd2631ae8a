#pragma once
// What `kiln build` shows on stderr while CMake and Ninja run. On a terminal: one line redrawn in
// place, cut to the terminal's width, with the configure step's elapsed seconds ticking and its
// last line (CMake is silent for seconds while it tests the CUDA compiler). Elsewhere (CI logs):
// plain lines, a few per minute, never carriage returns.
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "io/seams.hpp"
#include "io/terminal.hpp"
#include "drive/build.hpp"
#include "drive/eta.hpp"
#include "launch/running_units.hpp"

namespace kiln::cli {

// "configuring (CMake) 7s  -- Detecting CUDA compiler ABI info", cut to the width (0: not cut).
std::string configure_line(std::chrono::seconds elapsed, const std::string& last_output, size_t width);
// The compile that has run longest now, and how many run (from the launcher's files).
struct RunningNow {
  std::string output;
  std::chrono::seconds elapsed{0};
  size_t count = 0;
  // Each running compile's output and its time so far when the files were read, for the ETA.
  std::vector<std::pair<std::string, std::chrono::milliseconds>> compiles;
  // kiln build --slurm: compiles whose job step waits in srun for the allocation's CPUs or memory
  // (not counted above: they have not begun).
  size_t queued = 0;
};
std::optional<RunningNow> longest_running(const std::vector<launch::RunningUnit>& units, long long now_ms);
// What the ETA is told runs at a status line that came `since` after the launcher's files were
// read (once a second, off the thread that passes on Ninja's lines): each compile's time advanced
// by `since`, and the compiles that the status lines since that read reported ended (`ended`, the
// outputs they name: drive::output_of) left out. Passed as read, the compile a line reports ended
// was counted running, and, once the next read missed it, as having run until the next status line:
// flash-attention's two waves on 16 cores said 1.23 of the time left (docs/benchmarks.md, helper he).
std::vector<drive::RunningCompile> running_at(const RunningNow& read, std::chrono::milliseconds since,
                                              const std::vector<std::string>& ended);
// "CMakeFiles/x.dir/softmax.cu.o running 1m05s (+3 more)" (", 11 queued in Slurm" inside the
// brackets under --slurm; "16 compiles queued in Slurm" when none has begun): the output first, so that a line cut
// keeping its end (fit_keeping_end) keeps the file name and the time.
std::string running_text(const RunningNow& r);
// Before Ninja's first status line (Ninja reports a step when it finishes): "building 4s  (first
// steps running)", or what runs when the launcher says.
std::string starting_line(std::chrono::seconds elapsed, size_t width, const std::optional<RunningNow>& running = {});
// A step that runs no Ninja (the wheel's install, its unpacking): "install 3s". Not "building ...
// (first steps running)", which would say that compiles start after they finished.
std::string other_step_line(std::string_view step, std::chrono::seconds elapsed, size_t width);
// The time left `since` seconds after the estimate `eta` was made, never below zero ("finishing").
std::optional<std::chrono::seconds> eta_after(std::optional<std::chrono::seconds> eta, std::chrono::seconds since);
// Lines for a terminal are cut to its width; lines for a log (a pipe, a file) are not.
size_t line_width(const io::Terminal& t);

// Asked once a second, off the thread that reads the build's output: what runs now.
using RunningSource = std::function<std::optional<RunningNow>()>;

class BuildProgress {
public:
  // `terminal` is asked at each redraw (the window may be resized). Without `running` (no
  // launcher), the line names Ninja's last finished step.
  BuildProgress(io::Seams& s, std::function<io::Terminal()> terminal, drive::EtaModel eta, RunningSource running = {});
  ~BuildProgress();
  BuildProgress(const BuildProgress&) = delete;
  BuildProgress& operator=(const BuildProgress&) = delete;

  drive::ProgressSink sink();
  void finish();  // stops the ticker and clears the line

private:
  void draw(const std::string& line, bool force_plain);
  void tick_loop();

  io::Seams& s_;
  std::function<io::Terminal()> terminal_;
  drive::EtaModel eta_;
  RunningSource running_source_;
  std::optional<RunningNow> running_;
  std::chrono::steady_clock::time_point read_at_{};  // when running_ was read
  std::vector<std::string> ended_since_read_;        // the outputs status lines named since
  std::mutex mu_;
  std::condition_variable cv_;
  std::thread ticker_;
  std::string current_line(std::chrono::steady_clock::time_point now) const;

  bool stop_ = false, drawn_ = false, configuring_ = false, building_ = false;
  std::string step_, last_output_;
  std::optional<drive::NinjaStatus> last_status_;
  std::optional<std::chrono::seconds> last_eta_;
  std::chrono::steady_clock::time_point step_start_{}, last_plain_{}, status_at_{};
};

}  // namespace kiln::cli
