// TORCH_CUDA_ARCH_LIST read and written (core/arch_spec.hpp).
#include <algorithm>

#include <fmt/format.h>

#include "core/arch_spec.hpp"
#include "core/arch_spec_parts.hpp"
#include "core/text.hpp"
#include "core/torch_archs.hpp"

namespace kiln::core {

using namespace spec_parts;  // the readers' shared pieces (core/arch_spec_parts.hpp)

// TORCH_CUDA_ARCH_LIST. First torch's own reading (core/torch_archs); then kiln's, which also takes
// commas, stray spaces, any-case names, `f` variants and architectures the torch table lacks. What
// only kiln reads comes with a warning naming torch.
tl::expected<TargetSet, SpecError> parse_torch(std::string_view spec, const SpecContext& ctx, Warnings* warnings) {
  const TorchArchTable& table = torch_arch_table(ctx.torch_version);
  TargetSet set;
  std::vector<std::string> tokens = split_any(spec, "; ,\t\n");
  if (tokens.empty()) return tl::unexpected(bad(std::string(spec), "empty architecture list"));
  for (const auto& tok : tokens) {
    auto named = std::find_if(table.named.begin(), table.named.end(),
                              [&](const auto& p) { return to_lower(p.first) == to_lower(tok); });
    if (named != table.named.end()) {
      for (const auto& piece : split_any(named->second, ";")) {
        auto expanded = parse_torch(piece, ctx, nullptr);
        if (!expanded) return expanded;
        set.add(*expanded);
      }
      continue;
    }
    std::string body = tok;
    bool ptx = false;
    if (auto plus = to_lower(body).find("+ptx"); plus != std::string::npos && plus + 4 == body.size()) {
      ptx = true;
      body.resize(plus);
    }
    if (body.find('.') == std::string::npos)
      return tl::unexpected(bad(tok,
                                "TORCH_CUDA_ARCH_LIST entries look like 8.0, 9.0a or 9.0+PTX, "
                                "or a name such as Ampere or Hopper"));
    auto arch = parse_arch_name(body);
    if (!arch) return tl::unexpected(bad(tok, "not a compute capability (expected MAJOR.MINOR, e.g. 8.6)"));
    if (auto e = unknown_arch(*arch, tok)) return tl::unexpected(*e);
    set.add(Target{*arch, CodeKind::sass});
    if (ptx) set.add(Target{*arch, CodeKind::ptx});
  }
  if (warnings) {
    auto verdict = torch_reads(spec, table);
    if (!verdict.accepted) {
      const std::string what = verdict.entry.empty()
                                   ? std::string("an empty entry (torch splits on ';' and spaces only)")
                                   : "'" + verdict.entry + "'";
      auto canonical = format_torch(set, ctx.torch_version);
      warnings->push_back(
          fmt::format("torch {} refuses TORCH_CUDA_ARCH_LIST=\"{}\" (\"Unknown CUDA arch\": {}); kiln reads it as {}{}",
                      table.version, std::string(spec), what,
                      canonical ? "\"" + *canonical + "\"" : format_cmake(set) + " (CMake form)",
                      canonical ? "" : " and hands torch the part it can spell, nvcc the rest"));
    }
  }
  return set;
}

std::pair<TargetSet, TargetSet> split_for_torch(const TargetSet& set, std::string_view torch_version) {
  const TorchArchTable& table = torch_arch_table(torch_version);
  TargetSet ok, rest;
  for (const auto& t : set) {
    const bool spellable =
        table.can_spell(t.arch) && (t.kind == CodeKind::sass || set.contains(Target{t.arch, CodeKind::sass}));
    (spellable ? ok : rest).add(t);
  }
  return {ok, rest};
}

tl::expected<std::string, SpecError> format_torch(const TargetSet& set, std::string_view torch_version) {
  const TorchArchTable& table = torch_arch_table(torch_version);
  std::string out;
  for (const auto& t : set) {
    if (!table.can_spell(t.arch))
      return tl::unexpected(SpecError{t.name(), fmt::format("'{}': torch {}'s TORCH_CUDA_ARCH_LIST has no entry {} "
                                                            "(its table: data/torch_archs.toml); use --to nvcc",
                                                            t.name(), table.version, t.arch.dotted())});
    if (t.kind == CodeKind::ptx) {
      if (!set.contains(Target{t.arch, CodeKind::sass}))
        return tl::unexpected(SpecError{t.arch.compute(), "'" + t.arch.compute() +
                                                              "': TORCH_CUDA_ARCH_LIST cannot express PTX "
                                                              "without SASS of the same architecture; use "
                                                              "--to cmake or --to nvcc"});
      continue;  // printed as +PTX beside its SASS
    }
    if (!out.empty()) out += ";";
    out += t.arch.dotted();
    if (set.contains(Target{t.arch, CodeKind::ptx})) out += "+PTX";
  }
  return out;
}

}  // namespace kiln::core
