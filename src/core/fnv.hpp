#pragma once
// FNV-1a, 64-bit: a stable hash of bytes (the same on every run and machine) for kiln's file names
// and cache keys. Not a defence against anyone crafting collisions.
#include <cstdint>
#include <string_view>

namespace kiln::core {

inline std::uint64_t fnv1a64(std::string_view data) {
  std::uint64_t h = 1469598103934665603ULL;
  for (unsigned char c : data) h = (h ^ c) * 1099511628211ULL;
  return h;
}

}  // namespace kiln::core
