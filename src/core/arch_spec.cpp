#include "core/arch_spec.hpp"

#include <algorithm>
#include <cctype>
#include <map>

#include "core/cuda_archs.hpp"

namespace kiln::core {
namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// Splits on any of `seps`, dropping empty pieces and surrounding quotes.
std::vector<std::string> split(std::string_view s, std::string_view seps) {
  std::vector<std::string> out;
  std::string cur;
  auto push = [&] {
    std::string t = cur;
    t.erase(std::remove(t.begin(), t.end(), '"'), t.end());
    t.erase(std::remove(t.begin(), t.end(), '\''), t.end());
    if (!t.empty()) out.push_back(t);
    cur.clear();
  };
  for (char c : s) {
    if (seps.find(c) != std::string_view::npos)
      push();
    else
      cur += c;
  }
  push();
  return out;
}

SpecError bad(const std::string& token, const std::string& why) {
  return SpecError{token, "'" + token + "': " + why};
}

const std::map<std::string, std::string>& torch_names_lower() {
  static const auto m = [] {
    std::map<std::string, std::string> out;
    for (const auto& [k, v] : ArchCatalog::get().torch_named()) out[lower(k)] = v;
    return out;
  }();
  return m;
}

// The highest architecture of the highest major in `archs` (what nvcc's `all` adds PTX for).
std::optional<Arch> highest_major_virtual(const std::vector<Arch>& archs) {
  std::optional<Arch> best;
  for (const auto& a : archs)
    if (a.variant == Variant::none && a.minor() == 0 && (!best || a.number > best->number)) best = a;
  return best;
}

tl::expected<TargetSet, SpecError> resolve_keyword(const std::string& word, const SpecContext& ctx) {
  TargetSet set;
  if (word == "native") {
    if (!ctx.gpus_known || ctx.local_gpus.empty())
      return tl::unexpected(bad(word, "no local GPU was found to resolve `native`; name the GPUs with "
                                      "--gpu or list the architectures"));
    for (int cc : ctx.local_gpus) set.add(Target{Arch{cc}, CodeKind::sass});
    return set;
  }
  if (!ctx.nvcc_known)
    return tl::unexpected(bad(word, "resolving `" + word + "` needs nvcc; put it on PATH or set CUDA_HOME"));
  // nvcc and CMake: every (major) real architecture the compiler supports, plus PTX for the highest
  // major virtual architecture. Arch- and family-specific variants are never part of `all`.
  for (const auto& a : ctx.nvcc_sass)
    if (a.variant == Variant::none && (word == "all" || a.minor() == 0)) set.add(Target{a, CodeKind::sass});
  if (auto v = highest_major_virtual(ctx.nvcc_ptx.empty() ? ctx.nvcc_sass : ctx.nvcc_ptx))
    set.add(Target{*v, CodeKind::ptx});
  return set;
}

bool is_keyword(std::string_view w) { return w == "all" || w == "all-major" || w == "native"; }

}  // namespace

std::optional<Syntax> parse_syntax(std::string_view name) {
  if (name == "torch") return Syntax::torch;
  if (name == "cmake") return Syntax::cmake;
  if (name == "nvcc") return Syntax::nvcc;
  if (name == "auto") return Syntax::automatic;
  return std::nullopt;
}

std::string to_string(Syntax s) {
  switch (s) {
    case Syntax::torch: return "torch";
    case Syntax::cmake: return "cmake";
    case Syntax::nvcc: return "nvcc";
    default: return "auto";
  }
}

Syntax detect_syntax(std::string_view spec) {
  const std::string s = lower(spec);
  if (s.find_first_not_of(" \t") != std::string::npos && s[s.find_first_not_of(" \t")] == '-')
    return Syntax::nvcc;
  if (s.find("arch=") != std::string::npos || s.find("sm_") != std::string::npos ||
      s.find("compute_") != std::string::npos)
    return Syntax::nvcc;
  if (s.find('.') != std::string::npos || s.find("+ptx") != std::string::npos) return Syntax::torch;
  for (const auto& tok : split(s, "; ,\t"))
    if (torch_names_lower().count(tok)) return Syntax::torch;
  return Syntax::cmake;
}

tl::expected<TargetSet, SpecError> parse_torch(std::string_view spec) {
  TargetSet set;
  std::vector<std::string> tokens = split(spec, "; ,\t\n");
  if (tokens.empty()) return tl::unexpected(SpecError{"", "empty architecture list"});
  for (size_t i = 0; i < tokens.size(); ++i) {
    const std::string tok = tokens[i];
    auto named = torch_names_lower().find(lower(tok));
    if (named != torch_names_lower().end()) {
      auto expanded = parse_torch(named->second);
      if (!expanded) return expanded;
      set.add(*expanded);
      continue;
    }
    std::string body = tok;
    bool ptx = false;
    if (auto plus = lower(body).find("+ptx"); plus != std::string::npos && plus + 4 == body.size()) {
      ptx = true;
      body.resize(plus);
    }
    if (body.find('.') == std::string::npos)
      return tl::unexpected(bad(tok, "TORCH_CUDA_ARCH_LIST entries look like 8.0, 9.0a, 10.0f or 9.0+PTX, "
                                     "or a name such as Ampere or Hopper"));
    auto arch = parse_arch_name(body);
    if (!arch) return tl::unexpected(bad(tok, "not a compute capability (expected MAJOR.MINOR, e.g. 8.6)"));
    set.add(Target{*arch, CodeKind::sass});
    if (ptx) set.add(Target{*arch, CodeKind::ptx});
  }
  return set;
}

tl::expected<TargetSet, SpecError> parse_cmake(std::string_view spec, const SpecContext& ctx) {
  TargetSet set;
  std::vector<std::string> tokens = split(spec, "; ,\t\n");
  if (tokens.empty()) return tl::unexpected(SpecError{"", "empty architecture list"});
  for (const auto& tok : tokens) {
    const std::string low = lower(tok);
    if (is_keyword(low)) {
      auto r = resolve_keyword(low, ctx);
      if (!r) return r;
      set.add(*r);
      continue;
    }
    std::string body = low;
    bool sass = true, ptx = true;  // a plain number means both, as CMake documents
    for (std::string_view sfx : {"-real", "-virtual"})
      if (body.size() > sfx.size() && body.compare(body.size() - sfx.size(), sfx.size(), sfx) == 0) {
        body.resize(body.size() - sfx.size());
        (sfx == "-real" ? ptx : sass) = false;
      }
    if (body.find('.') != std::string::npos || body.find('_') != std::string::npos)
      return tl::unexpected(bad(tok, "CMake architectures look like 80, 90a-real or 90-virtual"));
    auto arch = parse_arch_name(body);
    if (!arch) return tl::unexpected(bad(tok, "not a CUDA architecture (expected e.g. 80, 90a-real, 100-virtual)"));
    if (sass) set.add(Target{*arch, CodeKind::sass});
    if (ptx) set.add(Target{*arch, CodeKind::ptx});
  }
  return set;
}

namespace {

// One -gencode value: arch=compute_XX,code=sm_XX | code=[sm_XX,compute_XX] | code="a,b".
tl::expected<TargetSet, SpecError> parse_gencode(const std::string& value) {
  std::string v = value;
  v.erase(std::remove(v.begin(), v.end(), '"'), v.end());
  v.erase(std::remove(v.begin(), v.end(), '\''), v.end());
  auto arch_pos = v.find("arch=");
  auto code_pos = v.find("code=");
  if (arch_pos == std::string::npos)
    return tl::unexpected(bad(value, "a -gencode value needs arch=compute_XX,code=..."));
  std::string arch_part = v.substr(arch_pos + 5, (code_pos == std::string::npos ? v.size() : code_pos) - arch_pos - 5);
  while (!arch_part.empty() && arch_part.back() == ',') arch_part.pop_back();
  if (arch_part.rfind("compute_", 0) != 0)
    return tl::unexpected(bad(value, "the arch= of -gencode must be a virtual architecture (compute_XX)"));
  auto virt = parse_arch_name(arch_part);
  if (!virt) return tl::unexpected(bad(arch_part, "not a virtual architecture"));
  std::string code_part = code_pos == std::string::npos ? arch_part : v.substr(code_pos + 5);
  code_part.erase(std::remove(code_part.begin(), code_part.end(), '['), code_part.end());
  code_part.erase(std::remove(code_part.begin(), code_part.end(), ']'), code_part.end());
  TargetSet set;
  for (const auto& code : split(code_part, ",")) {
    auto a = parse_arch_name(code);
    if (!a || (code.rfind("sm_", 0) != 0 && code.rfind("compute_", 0) != 0))
      return tl::unexpected(bad(code, "code= takes sm_XX (SASS) or compute_XX (PTX)"));
    const bool is_sass = code.rfind("sm_", 0) == 0;
    if (is_sass && a->number < virt->number)
      return tl::unexpected(bad(code, "SASS for " + a->sm() + " cannot be generated from " + virt->compute() +
                                          "; the virtual architecture must not be newer"));
    if (!is_sass && *a != *virt)
      return tl::unexpected(bad(code, "PTX code " + code + " must match arch=" + virt->compute()));
    set.add(Target{*a, is_sass ? CodeKind::sass : CodeKind::ptx});
  }
  return set;
}

}  // namespace

tl::expected<TargetSet, SpecError> parse_nvcc_args(const std::vector<std::string>& args, const SpecContext& ctx) {
  TargetSet set;
  std::optional<std::string> arch_value, code_value;
  auto take_value = [&](size_t& i, const std::string& flag, std::string_view name) -> std::optional<std::string> {
    const std::string& a = args[i];
    if (a == name) {
      if (i + 1 >= args.size()) return std::nullopt;
      return args[++i];
    }
    if (a.size() > name.size() && a.compare(0, name.size(), name) == 0 && a[name.size()] == '=')
      return a.substr(name.size() + 1);
    (void)flag;
    return std::nullopt;
  };
  bool any = false;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    bool matched = false;
    for (std::string_view name : {"-gencode", "--generate-code"}) {
      if (a == name || a.rfind(std::string(name) + "=", 0) == 0) {
        auto v = take_value(i, a, name);
        if (!v) return tl::unexpected(bad(a, "missing value after " + std::string(name)));
        auto g = parse_gencode(*v);
        if (!g) return g;
        set.add(*g);
        matched = any = true;
      }
    }
    if (matched) continue;
    for (std::string_view name : {"-arch", "--gpu-architecture"})
      if (a == name || a.rfind(std::string(name) + "=", 0) == 0) {
        auto v = take_value(i, a, name);
        if (!v) return tl::unexpected(bad(a, "missing value after " + std::string(name)));
        arch_value = *v;
        matched = any = true;
      }
    if (matched) continue;
    for (std::string_view name : {"-code", "--gpu-code"})
      if (a == name || a.rfind(std::string(name) + "=", 0) == 0) {
        auto v = take_value(i, a, name);
        if (!v) return tl::unexpected(bad(a, "missing value after " + std::string(name)));
        code_value = *v;
        matched = any = true;
      }
    if (!matched && !a.empty() && a[0] != '-')
      return tl::unexpected(bad(a, "not an nvcc architecture flag (expected -gencode, -arch or -code)"));
  }
  if (arch_value) {
    const std::string low = lower(*arch_value);
    if (is_keyword(low)) {
      if (code_value) return tl::unexpected(bad(*code_value, "-code cannot be combined with -arch=" + low));
      auto r = resolve_keyword(low, ctx);
      if (!r) return r;
      set.add(*r);
    } else {
      auto arch = parse_arch_name(low);
      if (!arch || (low.rfind("sm_", 0) != 0 && low.rfind("compute_", 0) != 0))
        return tl::unexpected(bad(*arch_value, "-arch takes sm_XX, compute_XX, native, all or all-major"));
      if (code_value) {
        auto g = parse_gencode("arch=compute_" + std::to_string(arch->number) + arch->suffix() + ",code=" + *code_value);
        if (!g) return g;
        set.add(*g);
      } else if (low.rfind("sm_", 0) == 0) {
        // nvcc: -arch=sm_XY is shorthand for -arch=compute_XY -code=sm_XY,compute_XY.
        set.add(Target{*arch, CodeKind::sass});
        set.add(Target{*arch, CodeKind::ptx});
      } else {
        // A virtual -arch without -code: -code defaults to the same virtual architecture.
        set.add(Target{*arch, CodeKind::ptx});
      }
    }
  } else if (code_value) {
    return tl::unexpected(bad(*code_value, "-code needs an -arch=compute_XX beside it"));
  }
  if (!any) return tl::unexpected(SpecError{"", "no -gencode, -arch or -code flag found"});
  return set;
}

tl::expected<TargetSet, SpecError> parse_nvcc(std::string_view spec, const SpecContext& ctx) {
  return parse_nvcc_args(split(spec, " \t\n"), ctx);
}

tl::expected<TargetSet, SpecError> parse_spec(std::string_view spec, Syntax syntax, const SpecContext& ctx) {
  if (syntax == Syntax::automatic) syntax = detect_syntax(spec);
  switch (syntax) {
    case Syntax::torch: return parse_torch(spec);
    case Syntax::nvcc: return parse_nvcc(spec, ctx);
    default: return parse_cmake(spec, ctx);
  }
}

tl::expected<std::string, SpecError> format_torch(const TargetSet& set) {
  std::string out;
  for (const auto& t : set) {
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

std::vector<std::string> nvcc_args(const TargetSet& set) {
  std::vector<std::string> out;
  for (const auto& t : set)
    out.push_back("-gencode=arch=" + t.arch.compute() + ",code=" +
                  t.name());
  return out;
}

std::string format_nvcc(const TargetSet& set) {
  std::string out;
  for (const auto& a : nvcc_args(set)) out += (out.empty() ? "" : " ") + a;
  return out;
}

tl::expected<std::string, SpecError> format_spec(const TargetSet& set, Syntax syntax) {
  switch (syntax) {
    case Syntax::torch: return format_torch(set);
    case Syntax::nvcc: return format_nvcc(set);
    default: return format_cmake(set);
  }
}

}  // namespace kiln::core
