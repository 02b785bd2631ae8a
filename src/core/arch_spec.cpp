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

using core::starts_with;

std::string strip_quotes(std::string s) {
  s.erase(std::remove(s.begin(), s.end(), '"'), s.end());
  s.erase(std::remove(s.begin(), s.end(), '\''), s.end());
  return s;
}

SpecError bad(const std::string& token, const std::string& why) { return SpecError{token, "'" + token + "': " + why}; }

// An architecture that no CUDA release has (sm_99, sm_89a) is refused by nvcc, CMake's nvcc and torch.
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

namespace {

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
