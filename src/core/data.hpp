#pragma once
// Access to the knowledge tables under data/, compiled into the binary by cmake/embed_data.cmake.
#include <optional>
#include <string_view>

namespace kiln::data {
// The text of data/<name>, or nullopt when no such file was embedded.
std::optional<std::string_view> file(std::string_view name);
}  // namespace kiln::data
