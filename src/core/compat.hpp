#pragma once
// How a set of targets runs on a GPU of a given compute capability, by NVIDIA's documented rules
// (CUDA C++ Programming Guide, "Binary Compatibility" and "PTX Compatibility"; CUDA 12.9 notes on
// arch-specific `a` and family-specific `f` targets):
//  - SASS sm_XY runs on compute capability X.Z for Z >= Y, same major only.
//  - sm_XYa runs only on exactly X.Y. sm_XYf runs on the family: same major, Z >= Y.
//  - PTX compute_XY is JIT-compiled by the driver for any compute capability >= X.Y.
//  - compute_XYa PTX is only usable on X.Y; compute_XYf on the family as for SASS.
#include <optional>
#include <string>

#include "core/arch.hpp"

namespace kiln::core {

enum class Verdict { native, compatible, ptx_jit, none };
std::string to_string(Verdict v);  // "native", "compatible", "ptx-jit", "none"

struct Coverage {
  Verdict verdict = Verdict::none;
  std::optional<Target> via;  // the target the driver would load; nullopt for none
  std::string why;            // one sentence
};

bool sass_runs_on(const Arch& sass, int cc);
bool ptx_jits_on(const Arch& ptx, int cc);
Coverage coverage(const TargetSet& set, int cc);

}  // namespace kiln::core
