#pragma once
// What a plan is asked for: the project, the targets and every option of kiln plan / kiln build.
// make_plan turns it into a Plan; request_args writes it back as arguments.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "read/checkout_options.hpp"
#include "read/options.hpp"

namespace kiln::plan {

struct BuildRequest {
  std::string project_dir;
  std::string project_reason;       // why this folder (the DIR argument, the current folder, the bundled example)
  std::string build_dir;            // empty: <project>/build-kiln
  std::vector<std::string> gpus;    // --gpu names or compute capabilities
  std::string archs;                // --archs spec
  std::string archs_from = "auto";  // --from
  std::optional<int> jobs;          // --jobs
  std::string jobs_source;          // where --jobs came from ("--jobs", "KILN_JOBS", "kiln.toml:3")
  std::string build_type;           // empty: the profile's, else Release
  std::string profile;              // production, distribution, dev, cpu (data/profiles.toml); empty: none
  std::vector<std::string> sets;    // --set KEY=VALUE: PyTorch options / env for Python builds, -D for CMake
  bool set_unknown = false;         // --set-unknown: pass USE_*/BUILD_* names the checkout does not declare
  std::optional<read::Platform> platform;  // for the checkout's if() conditions; unset: this machine (uname)
  std::string python;                      // interpreter for Python builds; empty: $PYTHON, else python3 on PATH
  bool pip = false;  // drive PyTorch with `pip install -e . --no-build-isolation` instead of setup.py develop
  read::LibraryCheck library_check;  // whether a runtime library exists and loads (doctor); may be empty
  bool ccache = true;
  bool governor = true;                         // run compiles through `kiln exec` under the memory governor
  std::string kiln_exe;                         // this binary, for the launcher; empty: no launcher
  std::optional<std::uint64_t> mem_budget_kib;  // --mem-budget; default: available memory less margin
  bool prune_archs = true;                      // nvcc builds the planned targets only (--keep-project-archs)
  bool split_threads = true;                    // give long nvcc units idle cores (launch/thread_grant.hpp)
  bool cpu_share = false;   // one CPU weight per compile, shared by its running threads (launch/thread_share)
  bool wheel_cache = true;  // a torch extension rebuilt from the same inputs installs its kept wheel
  std::string cache_dir;    // CCACHE_DIR for this build; empty: ccache's own
  std::vector<std::string> cmake_defines;  // extra -D KEY=VALUE
  std::string generator = "Ninja";         // CMake generator: Ninja or "Unix Makefiles" (kiln bench compares them)
  std::vector<std::string> knobs;          // --knob NAME=VALUE: a project switch, overriding kiln's choice
  bool no_knobs = false;                   // --no-knobs: set none of the project's switches
};

}  // namespace kiln::plan
