#include "read/options.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "core/data_toml.hpp"
#include "core/name_table.hpp"

namespace kiln::read {
namespace {

// The one spelling of each source, as the plan's JSON and text show it ("profile" is followed by its name).
constexpr core::NameTable<OptionSource, 8> kSourceNames{{{{OptionSource::default_value, "default"},
                                                          {OptionSource::profile, "profile"},
                                                          {OptionSource::environment, "environment"},
                                                          {OptionSource::set_option, "--set"},
                                                          {OptionSource::library, "library"},
                                                          {OptionSource::dependency, "dependency"},
                                                          {OptionSource::checkout, "checkout"},
                                                          {OptionSource::not_declared, "not declared here"}}}};

}  // namespace

std::string_view to_string(OptionSource s) { return kSourceNames.name(s); }

std::string to_string(const OptionOrigin& o) {
  return o.source == OptionSource::profile ? "profile " + o.profile : std::string(to_string(o.source));
}

std::optional<OptionOrigin> option_origin_from(std::string_view text) {
  if (text.rfind("profile ", 0) == 0) return OptionOrigin{OptionSource::profile, std::string(text.substr(8))};
  auto s = kSourceNames.find(text);
  if (!s || *s == OptionSource::profile) return std::nullopt;
  return OptionOrigin{*s, {}};
}

std::optional<bool> parse_bool(const std::string& v) {
  std::string s;
  for (char c : v) s += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (s == "1" || s == "on" || s == "true" || s == "yes") return true;
  if (s == "0" || s == "off" || s == "false" || s == "no") return false;
  return std::nullopt;
}

const std::map<std::string, std::string>& option_notes() {
  static const std::map<std::string, std::string> notes = [] {
    std::map<std::string, std::string> out;
    const toml::table t = data::load_toml("pytorch_options.toml");
    if (auto arr = t["note"].as_array())
      for (const auto& node : *arr)
        if (const auto* e = node.as_table())
          out[(*e)["name"].value_or(std::string())] = (*e)["text"].value_or(std::string());
    return out;
  }();
  return notes;
}

const std::vector<OptionDef>& pytorch_options() {
  static const std::vector<OptionDef> defs = [] {
    std::vector<OptionDef> out;
    const toml::table t = data::load_toml("pytorch_options.toml");
    if (auto arr = t["option"].as_array())
      for (const auto& node : *arr) {
        const auto& e = *node.as_table();
        OptionDef d;
        d.name = e["name"].value_or(std::string());
        d.default_on = e["default"].value_or(false);
        if (auto r = e["requires"].as_array())
          for (const auto& x : *r) d.requires_.push_back(x.value_or(std::string()));
        d.library = e["library"].value_or(std::string());
        if (auto oe = e["off_env"].as_table())
          for (const auto& [k, v] : *oe) d.off_env[std::string(k.str())] = v.value_or(std::string());
        d.help = e["help"].value_or(std::string());
        out.push_back(std::move(d));
      }
    for (auto& d : out)
      if (auto it = option_notes().find(d.name); it != option_notes().end()) d.note = it->second;
    return out;
  }();
  return defs;
}

tl::expected<std::vector<ResolvedOption>, std::string> resolve_options(
    const std::map<std::string, std::string>& profile_set, const std::string& profile_name,
    const std::map<std::string, std::string>& user_set, const LibraryCheck& library_check) {
  const auto& defs = pytorch_options();
  std::vector<ResolvedOption> out;
  std::map<std::string, size_t> index;
  for (const auto& d : defs) {
    index[d.name] = out.size();
    ResolvedOption o;
    o.name = d.name;
    o.on = o.default_on = d.default_on;
    o.origin = {OptionSource::default_value, {}};
    o.help = d.help;
    o.note = d.note;
    o.declared_at = "data/pytorch_options.toml";
    out.push_back(std::move(o));
  }
  auto apply = [&](const std::map<std::string, std::string>& set,
                   const OptionOrigin& origin) -> tl::expected<void, std::string> {
    for (const auto& [k, v] : set) {
      auto it = index.find(k);
      if (it == index.end()) continue;  // not a known PyTorch option: passed through as given
      auto b = parse_bool(v);
      if (!b) return tl::unexpected(fmt::format("{}={}: expected 1/0, ON/OFF or true/false", k, v));
      out[it->second].on = *b;
      out[it->second].origin = origin;
      out[it->second].reason = fmt::format("set by {}", to_string(origin));
    }
    return {};
  };
  if (auto r = apply(profile_set, {OptionSource::profile, profile_name}); !r) return tl::unexpected(r.error());
  if (auto r = apply(user_set, {OptionSource::set_option, {}}); !r) return tl::unexpected(r.error());

  // A feature whose runtime library is missing would build and then fail at run time (CUPTI):
  // turn it off unless the user insisted.
  for (size_t i = 0; i < defs.size(); ++i) {
    auto& o = out[i];
    if (!o.on || defs[i].library.empty() || o.origin.source == OptionSource::set_option || !library_check) continue;
    if (auto present = library_check(defs[i].library); present && !*present) {
      o.on = false;
      o.origin = {OptionSource::library, {}};
      o.reason = fmt::format("{} was not found or does not load; {}=0 avoids a build that fails at run time",
                             defs[i].library, o.name);
    }
  }
  // Dependent options, to a fixpoint (a chain such as USE_CUPTI -> USE_KINETO -> ... settles).
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t i = 0; i < defs.size(); ++i) {
      auto& o = out[i];
      if (!o.on) continue;
      for (const auto& req : defs[i].requires_) {
        auto it = index.find(req);
        if (it == index.end() || out[it->second].on) continue;
        o.on = false;
        o.origin = {OptionSource::dependency, {}};
        o.reason = fmt::format("needs {}, which is off", req);
        changed = true;
        break;
      }
    }
  }
  return out;
}

}  // namespace kiln::read
