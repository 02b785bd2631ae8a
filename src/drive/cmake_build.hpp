#pragma once
// Executing a plan: configure a CMake project with Ninja (or run a Python build), build with the
// planned job count, stream progress, keep the whole log in the build folder.
#include <chrono>
#include <functional>
#include <string>
#include <vector>

#include "io/seams.hpp"
#include "launch/ccache_stats.hpp"
#include "drive/ninja_progress.hpp"
#include "plan/plan.hpp"

namespace kiln::drive {

struct BuildOutcome {
  bool ok = false;
  std::string failed_step;  // "configure" or "build" when !ok
  int exit_code = 0;
  int term_signal = 0;
  std::chrono::milliseconds configure_time{0}, build_time{0};
  long peak_rss_kib = 0;  // largest single process of the build tree
  long build_peak_rss_kib = 0;  // the same, for the build step alone (configure's CMake excluded)
  int steps_run = 0;      // Ninja steps this build ran (0: up to date)
  bool configure_skipped = false;  // configured before with the same arguments: CMake not re-run
  bool has_cache_stats = false;
  launch::CacheStats cache;
  std::vector<std::string> artifacts;  // shared libraries and executables the build produced
  std::string wheel;                   // a torch extension's built wheel, as installed ("" none)
  std::chrono::milliseconds install_time{0};  // of build_time, pip installing that wheel
  struct {
    std::string key, root;  // "" when the wheel cache was not asked
    bool hit = false;       // the wheel came from the cache: the backend did not run
    bool stored = false;    // this build's wheel was kept
  } wheel_cache;
};

struct ProgressSink {
  std::function<void(const NinjaStatus&, std::chrono::milliseconds elapsed)> on_status;
  std::function<void(std::string_view line)> on_output;  // every non-status line
  std::function<void(std::string_view step, bool begin)> on_step;  // "configure" / "build" begins or ends
};

BuildOutcome run_cmake_build(const plan::Plan& plan, io::Seams& s, const ProgressSink& progress);

// What a configure depends on besides the project's files (which ninja watches itself): the
// CMake argv and the environment variables CMake reads. Equal stamps: no need to configure again.
std::string configure_stamp(const plan::Plan& plan, const std::map<std::string, std::string>& env);

// ELF shared libraries and executables under `dir`, skipping CMake's own scratch folders.
std::vector<std::string> find_artifacts(const io::Filesystem& fs, const std::string& dir);
// ELF files the link steps of a CMake Ninja build write, wherever they are (from build.ninja).
std::vector<std::string> linked_outputs(const io::Filesystem& fs, const std::string& build_dir);

}  // namespace kiln::drive
