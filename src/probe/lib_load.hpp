#pragma once
// Whether a shared library actually loads, checked the way the program that uses it will: the
// host's own loader (ld.so) starts a trivial dynamically linked program with the library in
// LD_PRELOAD and LD_BIND_NOW set (dlopen's RTLD_NOW), so a missing dependency, an undefined symbol
// or a crashing constructor fails here and not at run time. kiln is static (one binary for any
// glibc), so it cannot dlopen the host's libraries itself. The checks run under a child (kiln
// itself, in a hidden sub-mode), which also reads each library's SONAME from a read-only mapping,
// so a hostile file is parsed outside kiln's process too.
#include <ostream>
#include <string>
#include <vector>

#include "io/process.hpp"

namespace kiln::probe {

struct LoadCheck {
  std::string path;
  bool checked = false;  // the child reported on this library
  bool loaded = false;
  std::string error;      // dlerror(), or how the child died
  std::string soname;     // DT_SONAME, empty when none or unreadable
  std::string elf_error;  // why the SONAME could not be read
};

// The hidden sub-command the child runs: `<self> doctor --internal-load PATH...`.
inline constexpr const char* kInternalLoadFlag = "--internal-load";

// Runs the child (through the process seam, so tests can fake it). When a child dies part-way,
// the library it was loading is reported as the cause and a new child checks the rest.
std::vector<LoadCheck> check_loads(io::ProcessRunner& proc, const std::string& self_exe,
                                   const std::vector<std::string>& paths);

// The child's side: one "KILN-LOAD {json}" line per path, flushed before the next load.
int internal_load_main(const std::vector<std::string>& paths, std::ostream& out);

// The path of the running executable (/proc/self/exe), for spawning the child.
std::string self_executable();

}  // namespace kiln::probe
