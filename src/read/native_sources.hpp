#pragma once
// The C, C++ and CUDA sources a project folder holds (a bounded walk: build outputs, virtual
// environments and hidden folders skipped), for a build that compiled nothing to name what it
// should have compiled (issue 33).
#include <string>
#include <vector>

#include "io/fs.hpp"

namespace kiln::read {

struct NativeSources {
  int count = 0;                   // .c .cc .cpp .cxx .cu files found
  int cuda = 0;                    // of those, .cu
  std::vector<std::string> first;  // up to three, as paths relative to the project folder
  bool truncated = false;          // the walk stopped at its bound: there may be more
  std::string summary() const;     // "3 files (the first three names, ...; 1 CUDA)"
};

NativeSources find_native_sources(const io::Filesystem& fs, const std::string& project_dir);

}  // namespace kiln::read
