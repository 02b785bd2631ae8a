#pragma once
// The process seam. Every tool kiln drives (nvcc, cmake, ninja, python, ccache) runs through a
// ProcessRunner as an argv vector with an explicit environment, never a shell string.
#include <chrono>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kiln::io {

struct ProcessSpec {
  std::vector<std::string> argv;  // argv[0] is looked up on PATH when it has no slash
  // The child's whole environment; nullopt inherits kiln's.
  std::optional<std::map<std::string, std::string>> env;
  std::string cwd;  // empty: kiln's own
  // Called for each line of stdout and stderr (merged) as it arrives; the text is still captured.
  std::function<void(std::string_view line)> on_line;
  bool new_process_group = false;  // so Ctrl-C can stop a whole build tree
  std::string stdin_path;          // empty: /dev/null
  // The child writes straight to kiln's own stdout and stderr (a compiler under a launcher: Ninja
  // reads its output); nothing is captured and on_line is not called.
  bool inherit_stdio = false;
  // If kiln dies before the child ends (even by SIGKILL), a small guard process kills the child and
  // every process under it, so no compile outlives its launcher. Forks: single-threaded callers only.
  bool die_with_caller = false;
  // Raise the child's nice value by this much (lower CPU priority), best effort: set right after
  // it starts, before a compiler driver forks its stages, which inherit it.
  int nice = 0;
  // Called with the child's pid right after it started (and its guard, if any), on the calling
  // thread: for a watcher that runs beside the child until run() returns (launch/thread_share).
  std::function<void(int pid)> on_start;
};

struct ProcessResult {
  bool started = false;
  std::string spawn_error;  // why it did not start
  int exit_code = -1;       // valid when term_signal == 0
  int term_signal = 0;
  std::string out;
  std::string err;
  long peak_rss_kib = 0;  // of the child and its waited-for descendants
  std::chrono::milliseconds wall{0};
  std::chrono::milliseconds cpu{0};
  int orphans_killed = 0;  // processes its tree left behind, killed when it ended (a new process group's)
  bool ok() const { return started && term_signal == 0 && exit_code == 0; }
};

class ProcessRunner {
public:
  virtual ~ProcessRunner() = default;
  virtual ProcessResult run(const ProcessSpec& spec) = 0;
};

class RealProcessRunner final : public ProcessRunner {
public:
  ProcessResult run(const ProcessSpec& spec) override;
};

// The process group of the build currently running, so a SIGINT handler can stop it. 0: none.
int current_child_group();

}  // namespace kiln::io
