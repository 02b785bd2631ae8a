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

#include "io/seams.hpp"
#include "io/terminal.hpp"
#include "drive/build.hpp"
#include "drive/eta.hpp"

namespace kiln::cli {

// "configuring (CMake) 7s  -- Detecting CUDA compiler ABI info", cut to the width (0: not cut).
std::string configure_line(std::chrono::seconds elapsed, const std::string& last_output, size_t width);
// Before Ninja's first status line (Ninja reports a step when it finishes): "building 4s  (first
// steps running)".
std::string starting_line(std::chrono::seconds elapsed, size_t width);
// The time left `since` seconds after the estimate `eta` was made, never below zero ("finishing").
std::optional<std::chrono::seconds> eta_after(std::optional<std::chrono::seconds> eta, std::chrono::seconds since);
// Lines for a terminal are cut to its width; lines for a log (a pipe, a file) are not.
size_t line_width(const io::Terminal& t);

class BuildProgress {
public:
  // `terminal` is asked at each redraw (the window may be resized).
  BuildProgress(io::Seams& s, std::function<io::Terminal()> terminal, drive::EtaModel eta);
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
  std::mutex mu_;
  std::condition_variable cv_;
  std::thread ticker_;
  std::string current_line(std::chrono::steady_clock::time_point now) const;

  bool stop_ = false, drawn_ = false, configuring_ = false, building_ = false;
  std::string last_output_;
  std::optional<drive::NinjaStatus> last_status_;
  std::optional<std::chrono::seconds> last_eta_;
  std::chrono::steady_clock::time_point step_start_{}, last_plain_{}, status_at_{};
};

}  // namespace kiln::cli
