#pragma once
// Colour-science constants shared by the CPU reference and the CUDA kernels,
// so that both implement the same definition: sRGB with the D65 white point
// (IEC 61966-2-1) to CIE 1976 L*a*b*.
namespace mt::color {

// Linear sRGB -> CIE XYZ (rows X, Y, Z).
inline constexpr double kRgbToXyz[3][3] = {
    {0.4124564, 0.3575761, 0.1804375},
    {0.2126729, 0.7151522, 0.0721750},
    {0.0193339, 0.1191920, 0.9503041},
};
// CIE XYZ -> linear sRGB (the inverse of the matrix above).
inline constexpr double kXyzToRgb[3][3] = {
    {3.2404542, -1.5371385, -0.4985314},
    {-0.9692660, 1.8760108, 0.0415560},
    {0.0556434, -0.2040259, 1.0572252},
};
// D65 reference white.
inline constexpr double kWhite[3] = {0.95047, 1.00000, 1.08883};
// f(t) switches from the cube root to a line below (6/29)^3.
inline constexpr double kDelta = 6.0 / 29.0;

// BT.601 luma weights for rgb_to_gray.
inline constexpr double kLuma[3] = {0.299, 0.587, 0.114};

}  // namespace mt::color
