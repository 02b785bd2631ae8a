// CMake's CUDA_ARCHITECTURES read and written (core/arch_spec.hpp).
#include <cctype>

#include <fmt/format.h>

#include "core/arch_spec.hpp"
#include "core/arch_spec_parts.hpp"
#include "core/text.hpp"

namespace kiln::core {
namespace {

using namespace spec_parts;  // the readers' shared pieces (core/arch_spec_parts.hpp)

// CMake's false constants: CUDA_ARCHITECTURES=OFF means "no architecture flags" (nvcc's default).
bool cmake_false(std::string_view w) {
  const std::string l = to_lower(w);
  return l == "off" || l == "false" || l == "no" || l == "n" || l == "0" || l == "ignore" || l == "notfound" ||
         (l.size() > 9 && l.substr(l.size() - 9) == "-notfound");
}

tl::expected<TargetSet, SpecError> nvcc_default_set(const std::string& token, const SpecContext& ctx) {
  if (!ctx.nvcc_default)
    return tl::unexpected(bad(token, "CUDA_ARCHITECTURES=" + token +
                                         " passes no architecture flag, so nvcc's default "
                                         "applies; finding it needs nvcc: put it on PATH or set CUDA_HOME"));
  TargetSet set;
  set.add(Target{Arch{*ctx.nvcc_default}, CodeKind::sass});
  set.add(Target{Arch{*ctx.nvcc_default}, CodeKind::ptx});
  return set;
}

}  // namespace

// CUDA_ARCHITECTURES as CMake reads it: a ';' list of NUMBER[a|f][-real|-virtual], or one of
// all / all-major / native alone, or a false constant (OFF) for "no flags". CMake passes anything
// else through to nvcc, which refuses it (`80,86` becomes compute_80,86; `all;80` compute_all).
tl::expected<TargetSet, SpecError> parse_cmake(std::string_view spec, const SpecContext& ctx) {
  TargetSet set;
  std::vector<std::string> tokens = split(spec, ';');
  if (spec.empty()) return tl::unexpected(bad("", "empty architecture list (CMake: \"CUDA_ARCHITECTURES is empty\")"));
  if (tokens.size() == 1 && cmake_false(tokens[0])) return nvcc_default_set(tokens[0], ctx);
  for (const auto& tok : tokens) {
    if (tok.empty()) continue;  // CMake drops empty list elements
    if (tok.find_first_of(", \t\n") != std::string::npos)
      return tl::unexpected(bad(tok,
                                "CMake separates architectures with ';' only and would pass this to nvcc as one "
                                "architecture, which nvcc refuses; write " +
                                    fmt::format("{}", fmt::join(split_any(tok, ", \t\n"), ";"))));
    if (is_keyword(tok)) {
      if (tokens.size() > 1)
        return tl::unexpected(bad(tok, "`" + tok +
                                           "` must be the whole CUDA_ARCHITECTURES value (CMake would "
                                           "pass compute_" +
                                           tok + " to nvcc)"));
      return resolve_keyword(tok, ctx);
    }
    std::string body = tok;
    bool sass = true, ptx = true;  // a plain number means both, as CMake documents
    for (std::string_view sfx : {"-real", "-virtual"})
      if (body.size() > sfx.size() && body.compare(body.size() - sfx.size(), sfx.size(), sfx) == 0) {
        body.resize(body.size() - sfx.size());
        (sfx == "-real" ? ptx : sass) = false;
      }
    if (body.empty() || !std::isdigit(static_cast<unsigned char>(body[0])) ||
        body.find_first_of("._") != std::string::npos)
      return tl::unexpected(bad(tok, "CMake architectures look like 80, 90a-real or 90-virtual"));
    auto arch = parse_arch_name(body);
    if (!arch) return tl::unexpected(bad(tok, "not a CUDA architecture (expected e.g. 80, 90a-real, 100-virtual)"));
    if (auto e = unknown_arch(*arch, tok)) return tl::unexpected(*e);
    if (sass) set.add(Target{*arch, CodeKind::sass});
    if (ptx) set.add(Target{*arch, CodeKind::ptx});
  }
  if (set.empty())
    return tl::unexpected(bad(std::string(spec), "empty architecture list (CMake: \"CUDA_ARCHITECTURES is empty\")"));
  return set;
}

std::string format_cmake(const TargetSet& set) {
  std::string out;
  for (const auto& t : set) {
    const bool has_sass = set.contains(Target{t.arch, CodeKind::sass});
    const bool has_ptx = set.contains(Target{t.arch, CodeKind::ptx});
    if (t.kind == CodeKind::ptx && has_sass) continue;  // already printed as the plain number
    if (!out.empty()) out += ";";
    out += std::to_string(t.arch.number) + t.arch.suffix();
    if (has_sass && !has_ptx) out += "-real";
    if (!has_sass) out += "-virtual";
  }
  return out;
}

tl::expected<std::string, SpecError> format_cmake_strict(const TargetSet& set) {
  for (const auto& t : set)
    if (t.arch.variant == Variant::f)
      return tl::unexpected(SpecError{t.name(), "'" + t.name() +
                                                    "': CMake's CUDA_ARCHITECTURES has no spelling for "
                                                    "family-specific targets (CMake 4 refuses `" +
                                                    std::to_string(t.arch.number) + "f`); use --to nvcc"});
  return format_cmake(set);
}

}  // namespace kiln::core
