#pragma once
// A PyTorch checkout's build options for one plan: what the checkout declares (checkout_options),
// set by the profile, then the environment setup.py forwards, then --set, with features whose
// runtime library does not load turned off (doctor), each with its origin and reason.
// data/pytorch_options.toml is the fallback when the checkout declares nothing kiln can read, and
// the place for what CMake cannot say (the library a feature needs, variables that make "off" stick).
#include <map>
#include <string>
#include <vector>

#include <tl/expected.hpp>

#include "io/fs.hpp"
#include "read/checkout_options.hpp"
#include "read/options.hpp"

namespace kiln::read {

struct OptionRequest {
  std::map<std::string, std::string> profile_set;
  std::string profile_name;
  std::map<std::string, std::string> user_set;     // --set
  std::map<std::string, std::string> environment;  // the caller's environment
  bool set_unknown = false;                        // --set-unknown: pass undeclared names through
  LibraryCheck library_check;
  Platform platform;
};

struct OptionResolution {
  std::vector<ResolvedOption> options;
  bool from_checkout = false;
  std::vector<std::string> files;  // the checkout files read
  std::vector<std::string> notes;
  const ResolvedOption* find_declared(const std::string& name) const {
    for (const auto& o : options)
      if (o.name == name) return &o;
    return nullptr;
  }
};

struct OptionError {
  std::string message;
};

tl::expected<OptionResolution, OptionError> resolve_pytorch_options(const io::Filesystem& fs, const std::string& dir,
                                                                    const OptionRequest& req);

// Whether kiln must pass this option to setup.py: CMake decides defaults and dependent options by
// itself; what a profile, the environment, --set or a missing library decided it must be told.
bool option_is_passed(const ResolvedOption& o);

}  // namespace kiln::read
