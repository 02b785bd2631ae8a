#pragma once
// What the existing CMake cache says against a plan, as values: the plan carries one, and
// plan/stale_config fills it (see there for why a configuration goes stale).
#include <string>
#include <vector>

namespace kiln::plan {

struct StaleEntry {
  std::string key, cached, planned;  // cached: "" when the cache has no such entry
  std::string source;                // "CMakeCache.txt" or "last configure" (kiln's stamp)
};

// How a PyTorch checkout's fresh configure comes about.
enum class FreshConfigure {
  remove_cache,  // kiln removes CMakeCache.txt (as setup.py --cmake does), so setup.py re-runs CMake
  cmake_fresh,   // CMAKE_FRESH=1, where setup.py reads it: setup.py re-runs CMake from a fresh cache
};

struct ConfigCheck {
  std::string cmake_dir;  // the folder CMake configures: BUILD (CMake projects), CHECKOUT/build (PyTorch)
  bool cache_exists = false;
  std::vector<StaleEntry> changed;   // planned differently from the cache or the last configure
  std::vector<std::string> dropped;  // passed by the last configure, not now: the cache still holds them
  std::vector<std::string>
      cmake_changed;         // differs from the cache, but kiln passed the same last time: CMake's own doing
  std::string created_in;    // the cache was made in this other folder (moved or copied): CMake refuses it
  std::string made_for;      // the cache was configured from this other source: another project's build folder
  bool reconfigure = false;  // a fresh configure is needed (PyTorch; any kind when the cache was moved)
  FreshConfigure fresh = FreshConfigure::remove_cache;  // how, when reconfigure
  std::string how;                                      // what kiln does about it, in words for people
  std::string cache_path() const { return cmake_dir + "/CMakeCache.txt"; }
  std::string stamp_path() const { return cmake_dir + "/.kiln-configure.json"; }
};

}  // namespace kiln::plan
