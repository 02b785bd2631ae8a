#pragma once
// A configuration that cannot go stale. CMake keeps every -D value in CMakeCache.txt, and
// PyTorch's setup.py runs CMake only when that file is missing (tools/setup_helpers/cmake.py: "Everything's
// in place. Do not rerun."), so a USE_* or TORCH_CUDA_ARCH_LIST changed since the first build is
// ignored in silence. Before a build kiln compares what it will pass with the cache and with what
// it passed last time (a stamp beside the cache), and says which entries differ and how CMake is
// made to take them:
//   PyTorch: a fresh configure (CMAKE_FRESH=1 where setup.py reads it, else kiln removes
//            CMakeCache.txt, which is what setup.py's own --cmake does);
//   CMake projects kiln configures: -D on every configure already sets what changed; an entry kiln
//            passed before and no longer passes would stay in the cache, so kiln removes it (-U).
#include <map>
#include <string>
#include <vector>

#include "io/fs.hpp"
#include "plan/config_check.hpp"

namespace kiln::plan {

struct Plan;

// What kiln passes to CMake for this plan, as cache entries: -D values for CMake projects; the
// options passed through setup.py, TORCH_CUDA_ARCH_LIST and CMAKE_BUILD_TYPE for PyTorch.
std::map<std::string, std::string> planned_entries(const Plan& p);

ConfigCheck check_configuration(const io::Filesystem& fs, const Plan& p, const std::string& setup_py_text);

std::string stamp_text(const std::map<std::string, std::string>& entries);
std::map<std::string, std::string> parse_stamp(const std::string& text);

}  // namespace kiln::plan
