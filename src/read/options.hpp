#pragma once
// Resolving PyTorch's build options (data/pytorch_options.toml): defaults, then the profile, then
// --set, then missing libraries and dependent options turn features off, each with its reason.
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <tl/expected.hpp>

namespace kiln::read {

// Where an option's value comes from. kiln decides on it (what it passes to setup.py, what a missing
// library may turn off); the plan's JSON and text spell it through to_string.
enum class OptionSource {
  default_value,  // "default": the declaration's default
  profile,        // "profile NAME": the build profile
  environment,    // "environment": the caller's environment, which setup.py forwards
  set_option,     // "--set"
  library,        // "library": turned off, its runtime library does not load
  dependency,     // "dependency": turned off (or forced) by an option it depends on
  checkout,       // "checkout": the checkout's own CMake code sets it
  not_declared,   // "not declared here": declared only in a branch not taken on this platform
};
inline constexpr OptionSource kOptionSources[] = {
    OptionSource::default_value, OptionSource::profile,    OptionSource::environment, OptionSource::set_option,
    OptionSource::library,       OptionSource::dependency, OptionSource::checkout,    OptionSource::not_declared};
std::string_view to_string(OptionSource s);

struct OptionOrigin {
  OptionSource source = OptionSource::default_value;
  std::string profile;  // the profile's name, for OptionSource::profile
  bool operator==(const OptionOrigin&) const = default;
};
std::string to_string(const OptionOrigin& o);                           // "default", "profile dev", "--set" ...
std::optional<OptionOrigin> option_origin_from(std::string_view text);  // to_string's inverse

struct OptionDef {
  std::string name;
  bool default_on = false;
  std::vector<std::string> requires_;
  std::string library;
  std::map<std::string, std::string> off_env;
  std::string help;
  std::string note;  // what CMake's option() cannot say (a later step that may turn it off)
};

struct ResolvedOption {
  std::string name;
  bool on = false;
  OptionOrigin origin;
  std::string reason;  // why it has this value, when not the default
  // Where the option comes from: the checkout's CMake files (declared_at "CMakeLists.txt:254"), or
  // data/pytorch_options.toml when the checkout declares none kiln can read.
  bool from_checkout = false;
  bool default_on = false;
  std::string condition;    // cmake_dependent_option's <depends>, as written
  std::string declared_at;  // file:line
  std::string guard;        // if() around the declaration that kiln could not decide
  bool active = true;       // false: declared only in a branch not taken on this platform
  std::string help;
  std::string note;  // from data/pytorch_options.toml
};

// Answers whether a runtime library (by id: cudnn, nccl, cupti ...) is present and loads; nullopt
// when unknown (the option is then left alone).
using LibraryCheck = std::function<std::optional<bool>(const std::string& library)>;

const std::vector<OptionDef>& pytorch_options();
// data/pytorch_options.toml [[note]]: option name -> what its option() line cannot say.
const std::map<std::string, std::string>& option_notes();

// `profile_set` and `user_set` map option names to values ("1", "0", "ON", "OFF", "true" ...).
tl::expected<std::vector<ResolvedOption>, std::string> resolve_options(
    const std::map<std::string, std::string>& profile_set, const std::string& profile_name,
    const std::map<std::string, std::string>& user_set, const LibraryCheck& library_check);

std::optional<bool> parse_bool(const std::string& v);

}  // namespace kiln::read
