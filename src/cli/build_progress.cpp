#include "cli/build_progress.hpp"

#include <fmt/format.h>

namespace kiln::cli {

std::string configure_line(std::chrono::seconds elapsed, const std::string& last_output, size_t width) {
  std::string line = fmt::format("configuring (CMake) {}s", elapsed.count());
  if (!last_output.empty()) line += "  " + last_output;
  return drive::fit_columns(line, width > 1 ? width - 1 : 0);
}

BuildProgress::BuildProgress(io::Seams& s, std::function<io::Terminal()> terminal, drive::EtaModel eta)
    : s_(s), terminal_(std::move(terminal)), eta_(std::move(eta)) {
  last_plain_ = s_.clock.now() - std::chrono::hours(1);
  ticker_ = std::thread([this] { tick_loop(); });
}

BuildProgress::~BuildProgress() { finish(); }

void BuildProgress::finish() {
  {
    std::lock_guard lock(mu_);
    if (stop_) return;
    stop_ = true;
    if (drawn_) s_.err << "\r\033[K" << std::flush;
    drawn_ = false;
  }
  cv_.notify_all();
  if (ticker_.joinable()) ticker_.join();
}

// Called with mu_ held.
void BuildProgress::draw(const std::string& line, bool force_plain) {
  const io::Terminal t = terminal_();
  if (t.tty) {
    s_.err << "\r\033[K" << line << std::flush;
    drawn_ = true;
  } else if (force_plain || s_.clock.now() - last_plain_ >= std::chrono::seconds(10)) {
    // A CI log gets a line every few seconds, not one per step or tick.
    s_.err << line << "\n" << std::flush;
    last_plain_ = s_.clock.now();
  }
}

void BuildProgress::tick_loop() {
  std::unique_lock lock(mu_);
  while (!stop_) {
    cv_.wait_for(lock, std::chrono::seconds(1));
    if (stop_ || !configuring_) continue;
    const auto elapsed = std::chrono::duration_cast<std::chrono::seconds>(s_.clock.now() - step_start_);
    draw(configure_line(elapsed, last_output_, terminal_().columns), false);
  }
}

drive::ProgressSink BuildProgress::sink() {
  drive::ProgressSink sink;
  sink.on_step = [this](std::string_view step, bool begin) {
    std::lock_guard lock(mu_);
    configuring_ = begin && step == "configure";
    step_start_ = s_.clock.now();
    last_output_.clear();
    if (configuring_) draw(configure_line(std::chrono::seconds(0), "", terminal_().columns), true);
  };
  sink.on_output = [this](std::string_view line) {
    std::lock_guard lock(mu_);
    if (!configuring_ || line.find_first_not_of(" \t") == std::string_view::npos) return;  // keep the last real line
    last_output_ = std::string(line);
    const auto elapsed = std::chrono::duration_cast<std::chrono::seconds>(s_.clock.now() - step_start_);
    draw(configure_line(elapsed, last_output_, terminal_().columns), false);
  };
  sink.on_status = [this](const drive::NinjaStatus& st, std::chrono::milliseconds elapsed) {
    std::lock_guard lock(mu_);
    const auto eta = eta_.update(st, elapsed);
    draw(drive::progress_line(st, eta, terminal_().columns), st.done == st.total);
  };
  return sink;
}

}  // namespace kiln::cli
