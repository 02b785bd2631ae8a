#pragma once
// The options a PyTorch checkout declares: every option() and cmake_dependent_option() of its top
// CMakeLists.txt and the files under it that it include()s, resolved the way CMake's first pass
// would resolve them on this machine. kiln walks the files in order, keeps the variables it can
// know (the platform's, set() in branches it can decide, earlier options, the user's -D values),
// and decides if()/elseif()/else() branches with CMake's rules; a branch it cannot decide keeps
// its options, with the guarding condition recorded.
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "io/fs.hpp"
#include "read/cmake_lang.hpp"
#include "read/options.hpp"

namespace kiln::read {

// What CMake knows of the machine before the first line: CMAKE_SYSTEM_NAME, CMAKE_SYSTEM_PROCESSOR.
struct Platform {
  std::string system_name = "Linux";
  std::string processor = "x86_64";
};
Platform host_platform();  // uname(2)

// A value kiln passes to CMake for an option (through setup.py's environment), and why.
struct Preset {
  bool on = false;
  OptionOrigin origin;  // profile, environment, --set, library
  std::string reason;
};

struct DeclaredOption {
  std::string name, help;
  bool dependent = false;
  std::string default_text;  // as written, e.g. "ON" or "${CPU_INTEL}"
  std::string depends;       // cmake_dependent_option's condition as written
  std::string force;         // its value when the condition fails
  std::string file;          // relative to the checkout
  int line = 0;
  std::string guard;   // if() conditions around the declaration that kiln could not decide
  bool active = true;  // false: declared only in a branch not taken on this platform

  bool default_on = false;  // the default as CMake reads it here
  bool on = false;
  OptionOrigin origin;  // default, dependency, checkout, not declared here, or the preset's origin
  std::string reason;
  std::vector<std::string> unknown;  // variables kiln could not evaluate for this option
};

struct CheckoutOptions {
  std::vector<DeclaredOption> options;  // declaration order, one per name
  std::vector<std::string> files;       // read, relative to the checkout
  std::vector<std::string> warnings;    // files that did not parse, includes not found
  const DeclaredOption* find(const std::string& name) const;
};

using EnvLookup = std::function<std::optional<std::string>(const std::string&)>;

// Reads `dir`/CMakeLists.txt and what it includes. `presets` act as -D cache entries (a preset is
// what CMake would find in its cache). Missing CMakeLists.txt: no options and a warning.
CheckoutOptions read_checkout_options(const io::Filesystem& fs, const std::string& dir, const Platform& platform,
                                      const std::map<std::string, Preset>& presets, const EnvLookup& env);

}  // namespace kiln::read
