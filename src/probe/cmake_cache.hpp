#pragma once
// Audit of a configured build's CMakeCache.txt: features switched ON whose library CMake did not
// find (the seeds' USE_CUPTI:BOOL=ON with CUPTI_LIBRARY:FILEPATH=NOTFOUND), libraries recorded in
// the cache that have since disappeared or no longer load, and what the build was configured with
// (architectures, build type, compilers, compiler launcher).
#include <string>
#include <vector>

#include <tl/expected.hpp>

#include "io/seams.hpp"
#include "probe/finding.hpp"

namespace kiln::probe {

struct CacheEntry {
  std::string name, type, value;
  int line = 0;
};

struct CacheLibrary {
  std::string entry;  // the cache variable
  std::string path;
  bool exists = false;
  bool load_checked = false, loads = false;
  std::string load_error;
};

struct CacheFeature {
  std::string flag;  // USE_CUPTI
  bool on = false;
  std::vector<std::string> notfound;  // entries of this feature that read NOTFOUND
};

struct CmakeCacheAudit {
  std::string path;
  std::vector<CacheEntry> entries;
  std::string build_type, generator;
  std::string cuda_architectures, torch_cuda_arch_list;
  std::string c_compiler, cxx_compiler, cuda_compiler, cuda_host_compiler;
  std::string cxx_launcher, cuda_launcher;
  std::string created_in;  // CMAKE_CACHEFILE_DIR when the cache now sits elsewhere (cache_created_elsewhere)
  std::string source_dir;  // CMAKE_HOME_DIRECTORY: the source it was configured from
  std::vector<CacheFeature> features;
  std::vector<CacheLibrary> libraries;
  Findings findings;
  const CacheEntry* find(const std::string& name) const;
};

std::vector<CacheEntry> parse_cmake_cache(const std::string& text);
bool cmake_true(const std::string& value);  // ON, 1, TRUE, YES, Y (case-insensitive)
bool cmake_notfound(const std::string& value);

// CMAKE_CACHEFILE_DIR when it names another folder than `dir`, the one the cache is in: the build
// folder was moved or copied, and CMake refuses the cache ("The current CMakeCache.txt directory ...
// is different than the directory ... where CMakeCache.txt was created"). "" when it is `dir`.
std::string cache_created_elsewhere(const io::Filesystem& fs, const std::vector<CacheEntry>& entries,
                                    const std::string& dir);

// Unreadable file: an error string. `self_exe` runs the load check; empty skips it.
tl::expected<CmakeCacheAudit, std::string> audit_cmake_cache(const io::Seams& s, const std::string& path,
                                                             const std::string& self_exe);

}  // namespace kiln::probe
