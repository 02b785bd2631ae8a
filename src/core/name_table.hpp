#pragma once
// An enum's one spelling per value, for the serialisation edge (JSON, text, data/ tables): each enum
// keeps one such table in its .cpp, and its to_string / *_from are lookups in it.
#include <array>
#include <optional>
#include <string_view>
#include <utility>

namespace kiln::core {

template <typename E, std::size_t N>
struct NameTable {
  std::array<std::pair<E, std::string_view>, N> rows;

  constexpr std::string_view name(E e, std::string_view otherwise = {}) const {
    for (const auto& [v, n] : rows)
      if (v == e) return n;
    return otherwise;
  }
  constexpr std::optional<E> find(std::string_view s) const {
    for (const auto& [v, n] : rows)
      if (n == s) return v;
    return std::nullopt;
  }
};

}  // namespace kiln::core
