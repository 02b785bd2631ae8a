#pragma once
// A torch extension's built wheel, kept under the hash of everything that went into it: the
// project's files, the plan (targets, pruning, build type, the variables kiln sets and the
// project's own switches), the user's compiler variables and the toolchain (python, torch's
// version.py, nvcc, the host compiler's --version). A rebuild with the same inputs (a fresh copy of
// the same commit on a CI runner) installs the kept wheel instead of running the backend, whose
// fixed cost (Python importing torch, linking, zipping: about 9 s on the H100 host) ccache cannot
// remove. Any difference in the inputs is a miss, and the normal build (with ccache) runs.
//
// Not in the key, by design: the project's path (a fresh copy elsewhere hits, as with
// CCACHE_BASEDIR/NOHASHDIR: debug info of a hit may name the folder that built it), the job count
// and thread grants (they change scheduling, not output), and packages beside torch in the
// interpreter (setuptools, wheel), which shape only the wheel's metadata.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/arch.hpp"
#include "io/seams.hpp"
#include "read/project_knobs.hpp"

namespace kiln::launch {

// What a wheel is built from, as the plan says it (drive/torch_extension_build fills it in).
struct WheelInputs {
  std::string project_dir;  // hashed, its build output and caches skipped
  std::string build_dir;    // kiln's build folder: skipped, and made relative in kiln's variables
  core::TargetSet targets;
  bool prune_archs = false;
  std::string build_type, python, torch_package, nvcc, nvcc_version, real_cxx;
  std::map<std::string, std::string> env;  // what kiln sets for the build
  std::vector<read::Knob> knobs;           // the project's own switches
};

struct WheelKey {
  std::string hex;       // 32 hex digits
  std::string manifest;  // the text hashed, one input per line: what a miss can be explained by
  std::size_t files = 0;
};

// Walks the project folder through the Filesystem seam (a symlinked folder is hashed by what it
// holds, one level of links deep; FIFOs and devices are named, never read; files are hashed in
// pieces; VCS, build output and cache folders are skipped) and asks the host compiler for its version.
WheelKey wheel_key(const WheelInputs& p, const io::Seams& s);

// The cache folder: CACHE_DIR/kiln-wheels with --cache-dir (one folder for CI to keep), else
// $XDG_CACHE_HOME/kiln/wheels, else $HOME/.cache/kiln/wheels; "" when none can be named.
std::string wheel_cache_root(const std::string& cache_dir, const io::Environment& env);

struct CachedWheel {
  std::string path;  // ROOT/KEY.whl
  std::string name;  // the wheel's own file name (pip reads its tags from it)
};

// A complete entry only: its manifest is written last and names the wheel's size and content hash,
// checked here. An entry that fails the check (corrupt, cut short, a link) is removed: a miss.
std::optional<CachedWheel> find_cached_wheel(io::Filesystem& fs, const std::string& root, const WheelKey& key);

// Keeps the wheel (copied) and marks the key most recently used; evicts beyond `keep` entries.
bool store_wheel(io::Filesystem& fs, const std::string& root, const WheelKey& key, const std::string& wheel_path,
                 std::size_t keep = 8);
void touch_wheel(io::Filesystem& fs, const std::string& root, const WheelKey& key, std::size_t keep = 8);

}  // namespace kiln::launch
