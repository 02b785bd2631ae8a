#include "core/arch_spec_parts.hpp"

#include <fmt/format.h>

#include "core/cuda_archs.hpp"

namespace kiln::core::spec_parts {

SpecError bad(const std::string& token, const std::string& why) { return SpecError{token, "'" + token + "': " + why}; }

std::optional<SpecError> unknown_arch(const Arch& a, const std::string& token) {
  if (ArchCatalog::get().known(a)) return std::nullopt;
  const ArchInfo* info = ArchCatalog::get().find(a.number);
  if (info)
    return bad(token,
               fmt::format("{} has no `{}` variant in any CUDA release (data/cuda_archs.toml)", a.sm(), a.suffix()));
  return bad(token,
             fmt::format("{} is not a CUDA architecture in any release (data/cuda_archs.toml lists them)", a.sm()));
}

tl::expected<TargetSet, SpecError> resolve_keyword(const std::string& word, const SpecContext& ctx) {
  TargetSet set;
  if (word == "native") {
    if (!ctx.gpus_known || ctx.local_gpus.empty())
      return tl::unexpected(bad(word,
                                "no local GPU was found to resolve `native`; name the GPUs with "
                                "--gpu or list the architectures"));
    for (int cc : ctx.local_gpus) set.add(Target{Arch{cc}, CodeKind::sass});
    return set;
  }
  if (!ctx.nvcc_known || ctx.nvcc_sass.empty())
    return tl::unexpected(bad(word, "resolving `" + word + "` needs nvcc; put it on PATH or set CUDA_HOME"));
  // nvcc (CMake passes -arch=all / -arch=all-major through): `all` is every real architecture the
  // compiler lists, `all-major` the X.0 ones "plus the earliest supported" (nvcc --help); both add
  // PTX for the highest X.0 virtual architecture. Variants are never part of them.
  std::optional<int> earliest;
  for (const auto& a : ctx.nvcc_sass)
    if (a.variant == Variant::none && (!earliest || a.number < *earliest)) earliest = a.number;
  for (const auto& a : ctx.nvcc_sass)
    if (a.variant == Variant::none && (word == "all" || a.minor() == 0 || a.number == earliest))
      set.add(Target{a, CodeKind::sass});
  std::optional<Arch> top;
  for (const auto& a : ctx.nvcc_ptx.empty() ? ctx.nvcc_sass : ctx.nvcc_ptx)
    if (a.variant == Variant::none && a.minor() == 0 && (!top || a.number > top->number)) top = a;
  if (top) set.add(Target{*top, CodeKind::ptx});
  return set;
}

bool is_keyword(std::string_view w) { return w == "all" || w == "all-major" || w == "native"; }

}  // namespace kiln::core::spec_parts
