#pragma once
// kiln.toml checked before CLI11 reads it. CLI11's reader skips what it does not understand, so a
// typo ("jbos = 8") or a broken line would silently change nothing; here each is a usage error
// naming the file, the line and the key, with the nearest option when it looks like a typo.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace kiln::cli {

// `options` maps each section name (a sub-command; "" for keys before any section) to the keys it
// accepts. Returns the error message, or nullopt when the file is well formed.
std::optional<std::string> check_config(const std::string& path, const std::string& text,
                                        const std::map<std::string, std::vector<std::string>>& options);

// The keys that name a program kiln runs (`python`): refused in a kiln.toml kiln found by itself
// (DIR/kiln.toml, ./kiln.toml), which is the project's and so untrusted (issue 34, case 3: `[plan]
// python = "./evil.sh"` ran the project's script while planning). The message says how to choose
// one: the flag, the variable, or --config FILE. nullopt when none is there.
std::optional<std::string> refuse_programs(const std::string& path, const std::string& text);

// The sections `command` reads, most specific first: {"plan", "build"} for plan (so that a plan is
// the build's plan), else {command}. project_config gives CLI11 the keys of each.
std::vector<std::string> config_sections(const std::string& command);

// The line of `key` in [section] of a config file's text; nullopt when absent or the text is not TOML.
std::optional<unsigned> config_line(const std::string& text, const std::string& section, const std::string& key);

// The most kiln reads of a config file: it is a few lines; /dev/zero or a huge file must not be read whole.
inline constexpr std::uint64_t kConfigMaxBytes = 1 << 20;

}  // namespace kiln::cli
