#pragma once
// An embedded data/ table parsed as TOML. The tables are compiled in and tested, so a parse failure
// is a build bug: it aborts with the file name and position rather than limping on.
#include <toml++/toml.h>

#include <string_view>

namespace kiln::data {
toml::table load_toml(std::string_view name);
}
