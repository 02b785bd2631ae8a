#include "core/compat.hpp"

namespace kiln::core {

std::string to_string(Verdict v) {
  switch (v) {
    case Verdict::native:
      return "native";
    case Verdict::compatible:
      return "compatible";
    case Verdict::ptx_jit:
      return "ptx-jit";
    default:
      return "none";
  }
}

static bool same_family(const Arch& a, int cc) { return a.major() == cc / 10 && a.minor() <= cc % 10; }

bool sass_runs_on(const Arch& sass, int cc) {
  if (sass.variant == Variant::a) return sass.number == cc;
  return same_family(sass, cc);
}

bool ptx_jits_on(const Arch& ptx, int cc) {
  if (ptx.variant == Variant::a) return ptx.number == cc;
  if (ptx.variant == Variant::f) return same_family(ptx, cc);
  return ptx.number <= cc;
}

Coverage coverage(const TargetSet& set, int cc) {
  const std::string gpu = "compute capability " + cc_string(cc);
  std::optional<Target> best_sass, best_ptx;
  for (const auto& t : set) {
    if (t.kind == CodeKind::sass && sass_runs_on(t.arch, cc)) {
      // Prefer the exact architecture, then the newest compatible one.
      if (!best_sass || (t.arch.number == cc && best_sass->arch.number != cc) ||
          (t.arch.number > best_sass->arch.number && best_sass->arch.number != cc))
        best_sass = t;
    }
    if (t.kind == CodeKind::ptx && ptx_jits_on(t.arch, cc) && (!best_ptx || t.arch.number > best_ptx->arch.number))
      best_ptx = t;
  }
  if (best_sass && best_sass->arch.number == cc)
    return {Verdict::native, best_sass, best_sass->arch.sm() + " SASS is built for exactly " + gpu};
  if (best_sass)
    return {Verdict::compatible, best_sass,
            best_sass->arch.sm() + " SASS runs on " + gpu + " (same major, lower minor)"};
  if (best_ptx)
    return {Verdict::ptx_jit, best_ptx,
            best_ptx->arch.compute() + " PTX is JIT-compiled by the driver at first launch on " + gpu};
  return {Verdict::none, std::nullopt,
          "no SASS of major " + std::to_string(cc / 10) + " at or below " + cc_string(cc) +
              " and no PTX at or below it: \"no kernel image is available for execution on the device\""};
}

}  // namespace kiln::core
