#pragma once
// Deterministic test inputs: the same seed gives the same tensor on every
// machine, so a failure can be reproduced.
#include <cstdint>
#include <vector>

#include "mt/core/Tensor.h"

namespace selftest {

// Uniform floats in [lo, hi) from a fixed-seed generator (splitmix64).
mt::Tensor uniform(std::vector<std::int64_t> sizes, std::uint64_t seed, float lo = 0.0f,
                   float hi = 1.0f);
// value(y, x) = sx * x + sy * y for an h x w image.
mt::Tensor ramp(std::int64_t h, std::int64_t w, float sx, float sy);
// An h x w x 3 image whose every pixel is (r, g, b).
mt::Tensor solid(std::int64_t h, std::int64_t w, float r, float g, float b);
// The transpose of an h x w image.
mt::Tensor transpose(const mt::Tensor& image);

// Largest |a - b| over all elements (shapes must match; both on the CPU).
double max_abs_diff(const mt::Tensor& a, const mt::Tensor& b);
// Largest |t| over all elements.
double max_abs(const mt::Tensor& t);

}  // namespace selftest
