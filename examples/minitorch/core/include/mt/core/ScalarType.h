#pragma once
// Element types (c10::ScalarType), deliberately few.
#include <cstddef>
#include <cstdint>

namespace mt {

enum class ScalarType : std::int8_t { Float = 0, Int = 1 };

inline constexpr std::size_t element_size(ScalarType t) {
  return t == ScalarType::Float ? sizeof(float) : sizeof(std::int32_t);
}
inline constexpr const char* scalar_type_name(ScalarType t) {
  return t == ScalarType::Float ? "float32" : "int32";
}

template <typename T> struct ScalarTypeOf;
template <> struct ScalarTypeOf<float> { static constexpr ScalarType value = ScalarType::Float; };
template <> struct ScalarTypeOf<std::int32_t> { static constexpr ScalarType value = ScalarType::Int; };

}  // namespace mt
