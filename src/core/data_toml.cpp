#include "core/data_toml.hpp"

#include <cstdio>
#include <cstdlib>
#include <string>

#include "core/data.hpp"

namespace kiln::data {

toml::table load_toml(std::string_view name) {
  auto text = file(name);
  const std::string source = "data/" + std::string(name);
  if (!text) {
    std::fprintf(stderr, "kiln: internal error: %s was not embedded\n", source.c_str());
    std::abort();
  }
  toml::parse_result parsed = toml::parse(*text, std::string_view(source));
  if (!parsed) {
    const auto& err = parsed.error();
    std::fprintf(stderr, "kiln: internal error: %s:%u: %s\n", source.c_str(),
                 static_cast<unsigned>(err.source().begin.line), std::string(err.description()).c_str());
    std::abort();
  }
  return std::move(parsed).table();
}

}  // namespace kiln::data
