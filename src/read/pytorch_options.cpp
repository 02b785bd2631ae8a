#include "read/pytorch_options.hpp"

#include <fmt/format.h>

#include "core/spelling.hpp"

namespace kiln::read {
namespace {

bool option_like(const std::string& name) { return name.rfind("USE_", 0) == 0 || name.rfind("BUILD_", 0) == 0; }

}  // namespace

bool option_is_passed(const ResolvedOption& o) {
  if (!o.from_checkout) return true;  // the table's options: kiln always said all of them
  switch (o.origin.source) {
    case OptionSource::default_value:
    case OptionSource::dependency:
    case OptionSource::checkout:
    case OptionSource::not_declared:
      return false;
    case OptionSource::profile:
    case OptionSource::environment:
    case OptionSource::set_option:
    case OptionSource::library:
      return true;
  }
  return true;
}

tl::expected<OptionResolution, OptionError> resolve_pytorch_options(const io::Filesystem& fs, const std::string& dir,
                                                                    const OptionRequest& req) {
  // What kiln passes to CMake (through setup.py's environment), lowest first.
  std::map<std::string, Preset> presets;
  auto add = [&](const std::map<std::string, std::string>& set, const OptionOrigin& origin,
                 bool strict) -> tl::expected<void, OptionError> {
    for (const auto& [k, v] : set) {
      if (!option_like(k)) continue;
      auto b = parse_bool(v);
      if (!b) {
        if (strict) return tl::unexpected(OptionError{fmt::format("{}={}: expected 1/0, ON/OFF or true/false", k, v)});
        continue;  // an environment variable that is no switch (USE_PRECOMPILED_HEADERS=maybe): CMake's business
      }
      presets[k] = {
          *b, origin,
          fmt::format("set by {}", origin.source == OptionSource::environment ? "the environment (" + k + "=" + v + ")"
                                                                              : to_string(origin))};
    }
    return {};
  };
  if (auto r = add(req.profile_set, {OptionSource::profile, req.profile_name}, true); !r)
    return tl::unexpected(r.error());
  if (auto r = add(req.environment, {OptionSource::environment, {}}, false); !r) return tl::unexpected(r.error());
  if (auto r = add(req.user_set, {OptionSource::set_option, {}}, true); !r) return tl::unexpected(r.error());

  // A feature whose runtime library is missing would build and fail at run time (the CUPTI
  // lesson): off, unless the user asked for it.
  if (req.library_check)
    for (const auto& d : pytorch_options()) {
      if (d.library.empty()) continue;
      auto it = presets.find(d.name);
      if (it != presets.end() && (it->second.origin.source == OptionSource::set_option ||
                                  it->second.origin.source == OptionSource::environment || !it->second.on))
        continue;
      if (it == presets.end() && !d.default_on) continue;
      if (auto present = req.library_check(d.library); present && !*present)
        presets[d.name] = {false,
                           {OptionSource::library, {}},
                           fmt::format("{} was not found or does not load; {}=0 avoids a build that fails at run time",
                                       d.library, d.name)};
    }

  EnvLookup env = [&req](const std::string& k) -> std::optional<std::string> {
    auto it = req.environment.find(k);
    if (it == req.environment.end()) return std::nullopt;
    return it->second;
  };
  CheckoutOptions declared = read_checkout_options(fs, dir, req.platform, presets, env);
  OptionResolution out;
  out.files = declared.files;
  for (const auto& w : declared.warnings) out.notes.push_back("reading the checkout's options: " + w);

  if (declared.options.empty()) {
    // Nothing readable: the table, as before.
    std::map<std::string, std::string> profile, user;
    for (const auto& [k, p] : presets) {
      if (p.origin.source == OptionSource::set_option)
        user[k] = req.user_set.at(k);
      else if (p.origin.source == OptionSource::profile)
        profile[k] = req.profile_set.at(k);
    }
    auto r = resolve_options(profile, req.profile_name, user, req.library_check);
    if (!r) return tl::unexpected(OptionError{r.error()});
    out.options = *r;
    out.notes.push_back(
        fmt::format("{}/CMakeLists.txt declares no option kiln can read; using data/pytorch_options.toml", dir));
    return out;
  }

  out.from_checkout = true;
  std::vector<std::string> names;
  for (const auto& d : declared.options) {
    ResolvedOption o;
    o.name = d.name;
    o.on = d.on;
    o.origin = d.origin;
    o.reason = d.reason;
    o.from_checkout = true;
    o.default_on = d.default_on;
    o.condition = d.depends;
    o.declared_at = fmt::format("{}:{}", d.file, d.line);
    o.guard = d.guard;
    o.active = d.active;
    o.help = d.help;
    if (auto it = option_notes().find(d.name); it != option_notes().end()) o.note = it->second;
    names.push_back(d.name);
    out.options.push_back(std::move(o));
  }

  // setup.py forwards every USE_*/BUILD_* to CMake, which ignores a name no option() declares: a
  // typo would pass in silence and the user would believe the feature is off.
  for (const auto& [k, v] : req.user_set) {
    if (!option_like(k) || declared.find(k)) continue;
    if (req.set_unknown) {
      out.notes.push_back(fmt::format(
          "--set {}={}: the checkout declares no {}; passed to setup.py as given (--set-unknown)", k, v, k));
      continue;
    }
    auto near = core::nearest_names(k, names, 3);
    std::string hint;
    for (const auto& n : near) hint += (hint.empty() ? "" : ", ") + n;
    return tl::unexpected(OptionError{
        fmt::format("--set {}: {} declares no option {} ({} options read from {}){}; --set-unknown passes it anyway", k,
                    dir, k, names.size(), out.files.empty() ? "CMakeLists.txt" : out.files.front(),
                    hint.empty() ? "" : "; nearest: " + hint)});
  }
  for (const auto& [k, v] : req.profile_set)
    if (option_like(k) && !declared.find(k))
      out.notes.push_back(
          fmt::format("profile {} sets {}, which this checkout does not declare; ignored", req.profile_name, k));
  return out;
}

}  // namespace kiln::read
