#include "core/arch_spec.hpp"
#include "core/text.hpp"

#include <algorithm>
#include <cctype>
#include <map>

#include <fmt/format.h>

#include "core/cuda_archs.hpp"
#include "core/torch_archs.hpp"

namespace kiln::core {

namespace {
constexpr std::pair<std::string_view, Syntax> kSyntaxNames[] = {
    {"torch", Syntax::torch}, {"cmake", Syntax::cmake}, {"nvcc", Syntax::nvcc}, {"auto", Syntax::automatic}};
}  // namespace

std::optional<Syntax> parse_syntax(std::string_view name) {
  for (const auto& [n, s] : kSyntaxNames)
    if (n == name) return s;
  return std::nullopt;
}

std::vector<std::string> syntax_names(bool with_auto) {
  std::vector<std::string> out;
  for (const auto& [n, s] : kSyntaxNames)
    if (with_auto || s != Syntax::automatic) out.emplace_back(n);
  return out;
}

std::string to_string(Syntax s) {
  switch (s) {
    case Syntax::torch:
      return "torch";
    case Syntax::cmake:
      return "cmake";
    case Syntax::nvcc:
      return "nvcc";
    default:
      return "auto";
  }
}

Syntax detect_syntax(std::string_view spec) {
  const std::string s = to_lower(spec);
  if (s.find_first_not_of(" \t") != std::string::npos && s[s.find_first_not_of(" \t")] == '-') return Syntax::nvcc;
  if (s.find("arch=") != std::string::npos || s.find("sm_") != std::string::npos ||
      s.find("compute_") != std::string::npos)
    return Syntax::nvcc;
  if (s.find('.') != std::string::npos || s.find("+ptx") != std::string::npos) return Syntax::torch;
  for (const auto& tok : split_any(s, "; ,\t"))
    for (const auto& [name, value] : torch_arch_table().named)
      if (to_lower(name) == tok) return Syntax::torch;
  return Syntax::cmake;
}

tl::expected<TargetSet, SpecError> parse_spec(std::string_view spec, Syntax syntax, const SpecContext& ctx,
                                              Warnings* warnings) {
  if (syntax == Syntax::automatic) syntax = detect_syntax(spec);
  switch (syntax) {
    case Syntax::torch:
      return parse_torch(spec, ctx, warnings);
    case Syntax::nvcc:
      return parse_nvcc(spec, ctx);
    default:
      return parse_cmake(spec, ctx);
  }
}

tl::expected<std::string, SpecError> format_spec(const TargetSet& set, Syntax syntax) {
  switch (syntax) {
    case Syntax::torch:
      return format_torch(set);
    case Syntax::nvcc:
      return format_nvcc(set);
    default:
      return format_cmake_strict(set);
  }
}

}  // namespace kiln::core
