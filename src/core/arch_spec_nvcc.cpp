// nvcc's -gencode/-arch/-code flags read and written (core/arch_spec.hpp).
#include <algorithm>

#include <fmt/format.h>

#include "core/arch_spec.hpp"
#include "core/arch_spec_parts.hpp"
#include "core/cuda_archs.hpp"
#include "core/text.hpp"

namespace kiln::core {
namespace {

using namespace spec_parts;  // the readers' shared pieces (core/arch_spec_parts.hpp)

std::string strip_quotes(std::string s) {
  s.erase(std::remove(s.begin(), s.end(), '"'), s.end());
  s.erase(std::remove(s.begin(), s.end(), '\''), s.end());
  return s;
}

// What nvcc builds for one code= entry of a virtual architecture, by nvcc 13's rules (measured with
// --dryrun and ptxas, tests/differential/nvcc.toml):
//  PTX: the code must be the virtual architecture itself.
//  SASS: not older than the virtual one; from compute_XXa only sm_XXa (nvcc or ptxas refuse the
//  rest); from compute_XXf only the same major, and a plain sm_YY becomes sm_YYf.
tl::expected<Target, SpecError> code_target(const Arch& virt, const std::string& code) {
  const bool is_sass = starts_with(code, "sm_");
  auto a = parse_arch_name(code);
  if (!a || (!is_sass && !starts_with(code, "compute_")))
    return tl::unexpected(bad(code, "code= takes sm_XX (SASS) or compute_XX (PTX)"));
  if (auto e = unknown_arch(*a, code)) return tl::unexpected(*e);
  const std::string incompatible = "nvcc refuses this pairing (\"Incompatible code generation requested: arch='" +
                                   virt.compute() + "', code='" + code + "'\")";
  if (!is_sass) {
    if (*a != virt)
      return tl::unexpected(bad(code, "PTX code must be arch=" + virt.compute() + " itself; " + incompatible));
    return Target{*a, CodeKind::ptx};
  }
  if (a->number < virt.number)
    return tl::unexpected(bad(code, "SASS for " + a->sm() + " cannot be generated from " + virt.compute() +
                                        "; the virtual architecture must not be newer"));
  if (virt.variant == Variant::a && (a->variant != Variant::a || a->number != virt.number))
    return tl::unexpected(
        bad(code, "arch-specific " + virt.compute() + " only builds " + virt.sm() +
                      (a->number != virt.number ? " (ptxas: \"cannot be compiled to future architecture\")"
                                                : "; " + incompatible)));
  if (virt.variant == Variant::f) {
    if (a->major() != virt.major())
      return tl::unexpected(bad(code, "family-specific " + virt.compute() + " only builds its own family (sm_" +
                                          std::to_string(virt.major()) + "x); " + incompatible));
    if (a->variant == Variant::none) a->variant = Variant::f;
  }
  return Target{*a, CodeKind::sass};
}

// One -gencode value: comma-separated keyword=value pairs, arch= and code=, code a single name or a
// bracketed list. An unbracketed list is refused as nvcc does ("'compute_80' is not in
// 'keyword=value' format"). Double quotes group as nvcc reads them (measured with nvcc 13): commas
// inside them do not split pairs, the quotes go, and a quoted code= value is a list without brackets
// (code="sm_90,compute_90" is SASS sm_90 plus PTX compute_90, as CMake and Makefiles pass it).
// Single quotes are not nvcc's: they stay in the name, which nvcc then refuses.
struct GencodeItem {
  std::string text;
  bool quoted = false;
};
std::vector<GencodeItem> gencode_items(const std::string& v) {
  std::vector<GencodeItem> items(1);
  int depth = 0;
  bool in_quote = false;
  for (char c : v) {
    if (c == '"') {
      in_quote = !in_quote;
      items.back().quoted = true;
      continue;
    }
    if (!in_quote && c == '[') ++depth;
    if (!in_quote && c == ']') --depth;
    if (c == ',' && depth == 0 && !in_quote)
      items.emplace_back();
    else
      items.back().text += c;
  }
  return items;
}

tl::expected<TargetSet, SpecError> parse_gencode(const std::string& value) {
  std::optional<std::string> arch_part, code_part;
  bool code_quoted = false;
  for (const auto& [item, quoted] : gencode_items(value)) {
    auto eq = item.find('=');
    if (eq == std::string::npos)
      return tl::unexpected(bad(item,
                                "not in keyword=value format: a -gencode code list needs brackets, "
                                "code=[sm_80,compute_80], or double quotes, code=\"sm_80,compute_80\""));
    const std::string key = item.substr(0, eq);
    if (key == "arch")
      arch_part = item.substr(eq + 1);
    else if (key == "code")
      code_part = item.substr(eq + 1), code_quoted = quoted;
    else
      return tl::unexpected(bad(item, "a -gencode value has only arch= and code="));
  }
  if (!arch_part) return tl::unexpected(bad(value, "a -gencode value needs arch=compute_XX,code=..."));
  if (!code_part)
    return tl::unexpected(
        bad(value, "-gencode without code= (nvcc: \"missing code\"); add code=sm_XX or code=[sm_XX,compute_XX]"));
  if (!starts_with(*arch_part, "compute_"))
    return tl::unexpected(bad(*arch_part, "the arch= of -gencode must be a virtual architecture (compute_XX)"));
  auto virt = parse_arch_name(*arch_part);
  if (!virt) return tl::unexpected(bad(*arch_part, "not a virtual architecture"));
  if (auto e = unknown_arch(*virt, *arch_part)) return tl::unexpected(*e);
  std::string codes = *code_part;
  if (code_quoted) {
    // nvcc splits a quoted list at its commas and reads brackets inside it as part of a name.
  } else if (codes.size() >= 2 && codes.front() == '[' && codes.back() == ']')
    codes = codes.substr(1, codes.size() - 2);
  else if (codes.find_first_of("[],") != std::string::npos)
    return tl::unexpected(bad(*code_part, "a -gencode code list needs brackets, code=[sm_80,compute_80]"));
  TargetSet set;
  for (const auto& code : split(codes, ',')) {
    auto t = code_target(*virt, code);
    if (!t) return tl::unexpected(t.error());
    set.add(*t);
  }
  return set;
}

// A bare nvcc name or -gencode value ("sm_90", "compute_90", "arch=compute_90,code=sm_90"): the
// spellings that say the same, so the user need not guess.
std::string bare_nvcc_hint(const std::string& word) {
  if (starts_with(word, "arch=")) return "; as nvcc flags write -gencode " + word;
  auto a = parse_arch_name(word.substr(0, word.find(',')));
  if (!a || !(starts_with(word, "sm_") || starts_with(word, "compute_"))) return "";
  const std::string cc = cc_string(a->number) + a->suffix();
  const bool ptx = starts_with(word, "compute_");
  return fmt::format("; for {} {} write {} (torch), {}-{} (CMake) or -gencode arch={},code={} (nvcc)", a->sm(),
                     ptx ? "PTX" : "SASS", ptx ? cc + "+PTX" : cc, std::to_string(a->number) + a->suffix(),
                     ptx ? "virtual" : "real", a->compute(), word.substr(0, word.find(',')));
}

// Bare nvcc names, alone or listed with ',' or ';' ("sm_90", "sm_80;sm_90a", "compute_90"): what
// each names, as -code does: sm_XY is XY's SASS (torch 9.0, CMake 90-real), compute_XY its PTX
// (90-virtual). nullopt when a piece is not such a name.
std::optional<TargetSet> bare_nvcc_names(const std::string& word) {
  TargetSet set;
  const auto pieces = split_any(word, ",;");
  if (pieces.empty()) return std::nullopt;
  for (const auto& piece : pieces) {
    const bool sass = starts_with(piece, "sm_");
    if (!sass && !starts_with(piece, "compute_")) return std::nullopt;
    auto a = parse_arch_name(piece);
    if (!a || unknown_arch(*a, piece)) return std::nullopt;
    set.add(Target{*a, sass ? CodeKind::sass : CodeKind::ptx});
  }
  return set;
}

}  // namespace

tl::expected<TargetSet, SpecError> parse_nvcc_args(const std::vector<std::string>& args, const SpecContext& ctx) {
  TargetSet set;
  std::optional<std::string> arch_value, code_value;
  bool any = false;
  // Returns the value of `name` at args[i] (as "-name=V" or "-name V"), advancing i past it.
  auto value_of = [&](size_t& i, std::string_view name) -> std::optional<tl::expected<std::string, SpecError>> {
    const std::string& a = args[i];
    if (a == name) {
      if (i + 1 >= args.size()) return tl::unexpected(bad(a, "missing value after " + std::string(name)));
      return args[++i];
    }
    if (a.size() > name.size() && a.compare(0, name.size(), name) == 0 && a[name.size()] == '=')
      return a.substr(name.size() + 1);
    return std::nullopt;
  };
  for (size_t i = 0; i < args.size(); ++i) {
    std::optional<tl::expected<std::string, SpecError>> v;
    if ((v = value_of(i, "-gencode")) || (v = value_of(i, "--generate-code"))) {
      if (!*v) return tl::unexpected(v->error());
      auto g = parse_gencode(**v);
      if (!g) return g;
      set.add(*g);
      any = true;
    } else if ((v = value_of(i, "-arch")) || (v = value_of(i, "--gpu-architecture"))) {
      if (!*v) return tl::unexpected(v->error());
      arch_value = **v;  // the last -arch wins, as in nvcc
      any = true;
    } else if ((v = value_of(i, "-code")) || (v = value_of(i, "--gpu-code"))) {
      if (!*v) return tl::unexpected(v->error());
      code_value = **v;
      any = true;
    } else if (!args[i].empty() && args[i][0] != '-') {
      auto names = bare_nvcc_names(to_lower(args[i]));
      if (!names)
        return tl::unexpected(bad(
            args[i], "not an nvcc architecture flag (expected -gencode, -arch or -code)" + bare_nvcc_hint(args[i])));
      set.add(*names);
      any = true;
    }
  }
  if (arch_value) {
    const std::string val = strip_quotes(*arch_value);
    if (is_keyword(val)) {
      if (code_value) return tl::unexpected(bad(*code_value, "-code cannot be combined with -arch=" + val));
      auto r = resolve_keyword(val, ctx);
      if (!r) return r;
      set.add(*r);
    } else {
      auto arch = parse_arch_name(val);
      const bool real = starts_with(val, "sm_");
      if (!arch || (!real && !starts_with(val, "compute_")))
        return tl::unexpected(bad(*arch_value, "-arch takes sm_XX, compute_XX, native, all or all-major"));
      if (auto e = unknown_arch(*arch, val)) return tl::unexpected(*e);
      if (code_value) {
        if (real)
          return tl::unexpected(bad(val,
                                    "with -code, -arch must be a virtual architecture (nvcc: \"must be a virtual code "
                                    "architecture\"); write -arch=" +
                                        arch->compute()));
        for (const auto& code : split(strip_quotes(*code_value), ',')) {
          auto t = code_target(*arch, code);
          if (!t) return tl::unexpected(t.error());
          set.add(*t);
        }
      } else {
        // nvcc: -arch=sm_XY is -arch=compute_XY -code=sm_XY,compute_XY; a virtual -arch alone is its
        // PTX. For sm_XYa / sm_XYf (and compute_XYa/f) nvcc also embeds plain compute_XY PTX.
        if (real) set.add(Target{*arch, CodeKind::sass});
        set.add(Target{*arch, CodeKind::ptx});
        if (arch->variant != Variant::none) set.add(Target{Arch{arch->number}, CodeKind::ptx});
      }
    }
  } else if (code_value) {
    return tl::unexpected(
        bad(*code_value, "-code needs an -arch=compute_XX beside it (nvcc: \"-arch option not specified\")"));
  }
  if (!any) return tl::unexpected(SpecError{"", "no -gencode, -arch or -code flag found"});
  return set;
}

tl::expected<TargetSet, SpecError> parse_nvcc(std::string_view spec, const SpecContext& ctx) {
  return parse_nvcc_args(split_any(spec, " \t\n"), ctx);
}

std::vector<std::string> nvcc_args(const TargetSet& set) {
  std::vector<std::string> out;
  for (const auto& t : set) out.push_back("-gencode=arch=" + t.arch.compute() + ",code=" + t.name());
  return out;
}

std::string format_nvcc(const TargetSet& set) {
  std::string out;
  for (const auto& a : nvcc_args(set)) out += (out.empty() ? "" : " ") + a;
  return out;
}

}  // namespace kiln::core
