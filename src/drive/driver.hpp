#pragma once
// The build driver interface: what a build reports (BuildOutcome), where its progress goes
// (ProgressSink), and what each project kind's driver works with (BuildContext).
#include <chrono>
#include <functional>
#include <ostream>
#include <optional>
#include <string>
#include <vector>

#include "drive/ninja_progress.hpp"
#include "io/seams.hpp"
#include "launch/ccache_stats.hpp"
#include "plan/plan.hpp"

namespace kiln::drive {

struct BuildOutcome {
  bool ok = false;
  std::string failed_step;  // "configure" or "build" when !ok
  int exit_code = 0;
  int term_signal = 0;
  std::chrono::milliseconds configure_time{0}, build_time{0};
  long peak_rss_kib = 0;        // largest single process of the build tree
  long build_peak_rss_kib = 0;  // the same, for the build step alone (configure's CMake excluded)
  int steps_run = 0;            // Ninja steps this build ran (0: up to date)
  long long started_ms = 0;     // unix epoch, when run_build began
  // The kernel's OOM kills since boot before and after the build (probe/oom_count); unknown: nullopt.
  std::optional<std::uint64_t> oom_kills_before, oom_kills_after;
  bool configure_skipped = false;  // configured before with the same arguments: CMake not re-run
  bool has_cache_stats = false;
  launch::CacheStats cache;
  std::vector<std::string> artifacts;         // shared libraries and executables the build produced
  std::string wheel;                          // a torch extension's built wheel, as installed ("" none)
  std::chrono::milliseconds install_time{0};  // of build_time, pip installing that wheel
  struct {
    std::string key, root;  // "" when the wheel cache was not asked
    bool hit = false;       // the wheel came from the cache: the backend did not run
    bool stored = false;    // this build's wheel was kept
  } wheel_cache;
};

struct ProgressSink {
  std::function<void(const NinjaStatus&, std::chrono::milliseconds elapsed)> on_status;
  std::function<void(std::string_view line)> on_output;            // every non-status line
  std::function<void(std::string_view step, bool begin)> on_step;  // "configure" / "build" begins or ends
};

class StepRunner;

// What a driver works with: the plan, the seams, the step runner (which also owns the log) and the
// outcome it fills in.
struct BuildContext {
  const plan::Plan& plan;
  io::Seams& s;
  StepRunner& steps;
  std::ostream& log;
  BuildOutcome& o;
};

class BuildDriver {
public:
  virtual ~BuildDriver() = default;
  // Runs the kind's steps; leaves o.ok false and o.failed_step set when one fails.
  virtual void build(BuildContext& ctx) = 0;
};

}  // namespace kiln::drive
