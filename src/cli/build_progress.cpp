#include "cli/build_progress.hpp"
#include "cli/progress_text.hpp"
#include "core/duration_text.hpp"
#include "core/terminal_text.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace kiln::cli {

std::string configure_line(std::chrono::seconds elapsed, const std::string& last_output, size_t width) {
  std::string line = "configuring (CMake) " + core::duration_text(elapsed);
  if (!last_output.empty()) line += "  " + last_output;
  return width == 0 ? line : fit_columns(line, width > 1 ? width - 1 : 0);
}

std::optional<RunningNow> longest_running(const std::vector<launch::RunningUnit>& units, long long now_ms) {
  if (units.empty()) return std::nullopt;
  RunningNow r;
  const launch::RunningUnit* oldest = nullptr;
  for (const auto& u : units) {
    if (u.queued) {
      ++r.queued;
      continue;
    }
    if (!oldest || u.start_ms < oldest->start_ms) oldest = &u;
    // A clock set back makes a negative time; it reads as just started.
    r.compiles.emplace_back(u.output, std::chrono::milliseconds(std::max(0LL, now_ms - u.start_ms)));
  }
  r.count = r.compiles.size();
  if (oldest) {
    r.output = oldest->output;
    r.elapsed = std::chrono::seconds(std::max(0LL, now_ms - oldest->start_ms) / 1000);
  }
  return r;
}

std::vector<drive::RunningCompile> running_at(const RunningNow& read, std::chrono::milliseconds since,
                                              const std::vector<std::string>& ended) {
  std::vector<drive::RunningCompile> out;
  // Not a structured binding: clang before 16 cannot capture one in the lambda (the fuzz build).
  for (const auto& compile : read.compiles) {
    const std::string& output = compile.first;
    if (std::none_of(ended.begin(), ended.end(), [&](const auto& e) { return drive::same_output(e, output); }))
      out.push_back({output, compile.second + std::max(std::chrono::milliseconds(0), since)});
  }
  return out;
}

std::string running_text(const RunningNow& r) {
  if (r.count == 0) return fmt::format("{} compile{} queued in Slurm", r.queued, r.queued == 1 ? "" : "s");
  std::string text = fmt::format("{} running {}", r.output, core::duration_text(r.elapsed));
  const std::string queued = r.queued ? fmt::format("{} queued in Slurm", r.queued) : "";
  if (r.count > 1)
    text += fmt::format(" (+{} more{}{})", r.count - 1, queued.empty() ? "" : ", ", queued);
  else if (!queued.empty())
    text += " (" + queued + ")";
  return text;
}

std::string starting_line(std::chrono::seconds elapsed, size_t width, const std::optional<RunningNow>& running) {
  const std::string head = fmt::format("building {}  ", core::duration_text(elapsed));
  if (!running) {
    const std::string line = head + "(first steps running)";
    return width == 0 ? line : fit_columns(line, width > 1 ? width - 1 : 0);
  }
  if (width == 0) return head + running_text(*running);
  const size_t room = width > 1 ? width - 1 : 0;
  if (head.size() >= room) return fit_columns(head, room);
  return head + fit_keeping_end(running_text(*running), room - head.size());
}

std::string other_step_line(std::string_view step, std::chrono::seconds elapsed, size_t width) {
  const std::string line = fmt::format("{} {}", step, core::duration_text(elapsed));
  return width == 0 ? line : fit_columns(line, width > 1 ? width - 1 : 0);
}

std::optional<std::chrono::seconds> eta_after(std::optional<std::chrono::seconds> eta, std::chrono::seconds since) {
  if (!eta) return eta;
  return std::max(std::chrono::seconds(0), *eta - since);
}

size_t line_width(const io::Terminal& t) { return t.tty ? t.columns : 0; }

// Called with mu_ held: what the line says now, between Ninja's status lines too.
std::string BuildProgress::current_line(std::chrono::steady_clock::time_point now) const {
  using std::chrono::duration_cast;
  using std::chrono::seconds;
  const size_t width = line_width(terminal_());
  const auto elapsed = duration_cast<seconds>(now - step_start_);
  if (configuring_) return configure_line(elapsed, last_output_, width);
  if (step_ != "build") return other_step_line(step_, elapsed, width);  // only "build" runs Ninja
  if (!last_status_) return starting_line(elapsed, width, running_);
  // Ninja's description names the last step that finished; the launcher's files what runs now.
  drive::NinjaStatus shown = *last_status_;
  if (running_) shown.description = running_text(*running_);
  return progress_line(shown, eta_after(last_eta_, duration_cast<seconds>(now - status_at_)), width, elapsed);
}

BuildProgress::BuildProgress(io::Seams& s, std::function<io::Terminal()> terminal, drive::EtaModel eta,
                             RunningSource running)
    : s_(s), terminal_(std::move(terminal)), eta_(std::move(eta)), running_source_(std::move(running)) {
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
    s_.err << "\r\033[K" << core::terminal_safe(line) << std::flush;
    drawn_ = true;
  } else if (force_plain || s_.clock.now() - last_plain_ >= std::chrono::seconds(10)) {
    // A CI log gets a line every few seconds, not one per step or tick.
    s_.err << core::terminal_safe(line) << "\n" << std::flush;
    last_plain_ = s_.clock.now();
  }
}

void BuildProgress::tick_loop() {
  std::unique_lock lock(mu_);
  while (!stop_) {
    cv_.wait_for(lock, std::chrono::seconds(1));
    if (stop_ || !(configuring_ || building_)) continue;
    if (building_ && running_source_) {
      // Read without the lock: the thread passing on Ninja's lines never waits for these files.
      // Status lines that come during the read may or may not be in it: theirs stay named.
      const size_t named = ended_since_read_.size();
      lock.unlock();
      std::optional<RunningNow> now;
      try {
        now = running_source_();
      } catch (...) {}
      const auto read_at = s_.clock.now();
      lock.lock();
      if (stop_ || !building_) continue;
      running_ = std::move(now);
      read_at_ = read_at;
      ended_since_read_.erase(ended_since_read_.begin(),
                              ended_since_read_.begin() + static_cast<std::ptrdiff_t>(named));
    }
    draw(current_line(s_.clock.now()), false);
  }
}

drive::ProgressSink BuildProgress::sink() {
  drive::ProgressSink sink;
  sink.on_step = [this](std::string_view step, bool begin) {
    std::lock_guard lock(mu_);
    configuring_ = begin && step == "configure";
    building_ = begin && step != "configure";
    step_ = std::string(step);
    step_start_ = s_.clock.now();
    last_output_.clear();
    last_status_.reset();
    last_eta_.reset();
    running_.reset();
    ended_since_read_.clear();
    // Something from the first second of every step: Ninja says nothing until a step finishes.
    if (begin) draw(current_line(step_start_), true);
  };
  sink.on_output = [this](std::string_view line) {
    std::lock_guard lock(mu_);
    if (!configuring_ || line.find_first_not_of(" \t") == std::string_view::npos) return;  // keep the last real line
    last_output_ = std::string(line);
    draw(current_line(s_.clock.now()), false);
  };
  sink.on_status = [this](const drive::NinjaStatus& st, std::chrono::milliseconds elapsed) {
    std::lock_guard lock(mu_);
    status_at_ = s_.clock.now();
    ended_since_read_.push_back(drive::output_of(st.description));
    last_eta_ = eta_.update(
        st, elapsed,
        running_ ? running_at(*running_, std::chrono::duration_cast<std::chrono::milliseconds>(status_at_ - read_at_),
                              ended_since_read_)
                 : std::vector<drive::RunningCompile>{});
    last_status_ = st;
    if (st.done == st.total) running_.reset();  // nothing runs after the last step
    draw(current_line(status_at_), st.done == st.total);
  };
  return sink;
}

}  // namespace kiln::cli
