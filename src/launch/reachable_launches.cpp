#include "launch/reachable_launches.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <functional>
#include <map>

#include "launch/code_text.hpp"
#include "launch/switch_cases.hpp"
#include "launch/unrolled_code.hpp"

namespace kiln::launch {
using namespace cxx;
namespace {

// No real kernel sits behind more than a few dozen calls; a pathological or generated file is
// capped so every figure stays finite (switch nesting: launch/switch_cases).
constexpr int kMaxCallDepth = 32;
const double kCap = std::pow(2.0, static_cast<double>(kMaxSwitchNesting));

// BOOL_SWITCH, AT_DISPATCH_FLOATING_TYPES_AND2, DISPATCH_HALF_AND_BFLOAT: an upper-case macro whose
// body is compiled once per case.
bool is_switch_macro(std::string_view name) {
  for (char c : name)
    if (std::islower(static_cast<unsigned char>(c))) return false;
  return name.find("SWITCH") != npos || name.find("DISPATCH") != npos;
}

bool is_macro_name(std::string_view name) {
  bool letter = false;
  for (char c : name) {
    if (std::islower(static_cast<unsigned char>(c))) return false;
    letter = letter || std::isupper(static_cast<unsigned char>(c));
  }
  return letter;
}

// After template arguments opened at `i` (`<`): the index past their `>`, or npos when this is no
// argument list (a comparison, an unbalanced text).
size_t after_angles(std::string_view t, size_t i) {
  int angle = 0, paren = 0;
  for (size_t end = std::min(t.size(), i + 2000); i < end; ++i) {
    const char c = t[i];
    if (c == '<')
      ++angle;
    else if (c == '>' && paren == 0 && --angle == 0)
      return i + 1;
    else if (c == '(')
      ++paren;
    else if (c == ')' && --paren < 0)
      return npos;
    else if (c == ';' || c == '{' || c == '}')
      return npos;
  }
  return npos;
}

// Whether only blanks stand between the line's start and `i`.
bool starts_line(std::string_view t, size_t i) {
  while (i > 0 && (t[i - 1] == ' ' || t[i - 1] == '\t')) --i;
  return i == 0 || t[i - 1] == '\n';
}

// Backwards from `close` (a `)` or `>`) to its opener; npos when unbalanced.
size_t opener_of(std::string_view t, size_t close) {
  const char c = t[close], o = c == ')' ? '(' : '<';
  int depth = 0;
  for (size_t i = close + 1; i-- > 0;) {
    if (t[i] == c)
      ++depth;
    else if (t[i] == o && --depth == 0)
      return i;
  }
  return npos;
}

// The name of the function whose parameter list ends just before `end` (its `)`), else empty:
// `f(...)`, `f<A, B>(...)`, `ns::f(...)`; never a control statement.
std::string name_before_params(std::string_view t, size_t close_paren) {
  const size_t open = opener_of(t, close_paren);
  if (open == npos) return {};
  size_t e = back_spaces(t, open);
  if (e > 0 && t[e - 1] == '>') {
    const size_t lt = opener_of(t, e - 1);
    if (lt == npos) return {};
    e = back_spaces(t, lt);
  }
  std::string_view name = ident_before(t, e);
  if (is_macro_name(name)) {  // DEFINE_FLASH_FORWARD_KERNEL(flash_fwd_kernel, ...) {
    const size_t a = skip_spaces(t, open + 1);
    size_t b = a;
    while (b < close_paren && is_ident(t[b])) ++b;
    const size_t after = skip_spaces(t, b);
    if (b > a && (t[after] == ',' || after == close_paren)) name = t.substr(a, b - a);
  }
  static const std::set<std::string_view> not_functions = {"if",      "for",           "while",         "switch",
                                                           "catch",   "return",        "sizeof",        "decltype",
                                                           "alignas", "static_assert", "__attribute__", "noexcept"};
  if (name.empty() || std::isdigit(static_cast<unsigned char>(name.front())) || not_functions.count(name)) return {};
  return std::string(name);
}

// The top-level pieces of a template argument or parameter list `<...>` whose `<` is at `lt`
// (`<=`, `>=` and `<<` are no brackets; `>>` closes two).
std::vector<std::string_view> angle_list(std::string_view t, size_t lt) {
  std::vector<std::string_view> out;
  int depth = 0;
  size_t from = lt + 1;
  for (size_t i = lt, end = std::min(t.size(), lt + 4000); i < end; ++i) {
    const char c = t[i], next = i + 1 < t.size() ? t[i + 1] : '\0';
    if (c == '<' && (next == '=' || next == '<'))
      ++i;
    else if (c == '>' && next == '=')
      ++i;
    else if (c == '<' || c == '(')
      ++depth;
    else if (c == '>' || c == ')') {
      if (--depth == 0) {
        out.push_back(t.substr(from, i - from));
        return out;
      }
    } else if (c == ',' && depth == 1) {
      out.push_back(t.substr(from, i - from));
      from = i + 1;
    } else if (c == ';' || c == '{' || c == '}') {
      break;
    }
  }
  return {};
}

// The names of the template parameters of the definition whose parameter list opens at `open`
// (`template <typename T, bool Is_causal = false>` gives T and Is_causal); none for a specialisation.
std::vector<std::string> template_params(std::string_view t, size_t open) {
  size_t s = open;
  while (s > 0 && t[s - 1] != ';' && t[s - 1] != '}' && t[s - 1] != '{') --s;
  const size_t p = skip_spaces(t, s);
  if (t.compare(p, 8, "template") != 0) return {};
  const size_t lt = skip_spaces(t, p + 8);
  if (lt >= open || t[lt] != '<') return {};
  std::vector<std::string> out;
  for (auto param : angle_list(t, lt)) {
    if (const auto eq = param.find('='); eq != npos) param = param.substr(0, eq);
    const std::string_view name = ident_before(param, back_spaces(param, param.size()));
    if (name.empty()) return {};
    out.emplace_back(name);
  }
  return out;
}

enum class Brace { function, scope, other };

// What the `{` at `i` opens, at namespace or class scope.
Brace classify(std::string_view t, size_t i, std::string& name, std::vector<std::string>& params) {
  size_t e = back_spaces(t, i);
  static const std::set<std::string_view> trailing = {"const", "noexcept", "override", "final", "mutable", "volatile"};
  for (std::string_view w; !(w = ident_before(t, e)).empty() && trailing.count(w);) e = back_spaces(t, e - w.size());
  if (e > 0 && t[e - 1] == ')') {
    name = name_before_params(t, e - 1);
    if (const size_t open = opener_of(t, e - 1); !name.empty() && open != npos) params = template_params(t, open);
    return name.empty() ? Brace::other : Brace::function;
  }
  // The statement's first words: namespace, struct, class, union, extern "C".
  size_t s = e;
  while (s > 0 && t[s - 1] != ';' && t[s - 1] != '}' && t[s - 1] != '{') --s;
  size_t p = skip_spaces(t, s);
  if (t.compare(p, 8, "template") == 0) {
    const size_t lt = skip_spaces(t, p + 8);
    if (lt < e && t[lt] == '<') {
      const size_t after = after_angles(t, lt);
      if (after == npos) return Brace::other;
      p = skip_spaces(t, after);
    }
  }
  size_t w = p;
  while (w < e && is_ident(t[w])) ++w;
  std::string_view first = t.substr(p, w - p);
  if (first == "inline") {
    p = skip_spaces(t, w);
    for (w = p; w < e && is_ident(t[w]);) ++w;
    first = t.substr(p, w - p);
  }
  if (first == "namespace" || first == "struct" || first == "class" || first == "union" || first == "extern")
    return Brace::scope;
  return Brace::other;
}

}  // namespace

CodeWeight weigh_code(std::string_view text, double macro_factor, const std::set<std::string>& callable,
                      const SwitchValues& bound) {
  CodeWeight w;
  SiteCases cases(text, macro_factor, bound);
  int depth = 0;
  std::vector<SiteCases::Switch> open;  // the switch macros whose arguments are open here
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '<' && text.compare(i, 3, "<<<") == 0) {
      size_t e = back_spaces(text, i), lt = npos;
      if (e > 0 && text[e - 1] == '>') {  // kernel<T, 4><<<...>>>
        lt = opener_of(text, e - 1);
        e = lt == npos ? 0 : back_spaces(text, lt);
      }
      const std::string_view name = ident_before(text, e);
      // The kernel as the site names it: with its template arguments, or the variable set to it.
      const size_t from = e - name.size();
      const bool args = lt != npos, assigned = !args && cases.has_alias(name, i);
      const double times = cases.count(open, i, text.substr(from, back_spaces(text, i) - from), args || assigned);
      w.launches += times;
      std::vector<std::string> written;
      if (args)
        for (auto a : angle_list(text, lt)) written.push_back(fold_switch_constants(a, bound));
      w.launched.push_back({std::string(name), times, std::move(written)});
      i += 2;
    } else if (c == '(') {
      ++depth;
    } else if (c == ')') {
      depth = std::max(0, depth - 1);
      while (!open.empty() && open.back().depth > depth) open.pop_back();
    } else if (is_ident(c) && (i == 0 || !is_ident(text[i - 1]))) {
      size_t end = i;
      while (end < text.size() && is_ident(text[end])) ++end;
      const std::string_view name = text.substr(i, end - i);
      size_t paren = end;
      while (paren < text.size() && (text[paren] == ' ' || text[paren] == '\t')) ++paren;
      if (paren < text.size() && text[paren] == '(' && is_switch_macro(name)) {
        open.push_back({++depth, switch_constant(text, paren), i});
        i = paren;
        continue;
      }
      if (!callable.empty() && callable.count(std::string(name))) {
        size_t q = skip_spaces(text, end);
        if (q < text.size() && text[q] == '<' && text.compare(q, 3, "<<<") != 0) {
          q = after_angles(text, q);
          if (q != npos) q = skip_spaces(text, q);
        }
        if (q != npos && q < text.size() && text[q] == '(') {
          // The callee as instantiated: its template arguments, and its arguments where a switch's
          // constant is passed in them (a template argument deduced from it).
          const size_t close = matching(text, q, '(', ')');
          const std::string_view site = text.substr(i, (close == npos ? q : close + 1) - i);
          std::vector<std::string> folded;
          const double times = cases.count(open, i, site, true, &folded);
          for (const auto& f : folded) {  // one call a distinct instantiation, with its template arguments
            std::vector<std::string> args;
            if (const size_t lt = f.find('<', name.size()); lt == name.size())
              for (auto a : angle_list(f, lt)) args.emplace_back(a);
            w.calls.push_back({std::string(name), times / static_cast<double>(folded.size()), std::move(args)});
          }
        }
      }
      i = end - 1;
    }
  }
  return w;
}

std::vector<FunctionBody> function_bodies(std::string_view text) {
  // Preprocessor lines blanked (offsets kept): a macro's braces are not the file's, and a statement
  // begins after the directives before it.
  std::string clean(text);
  for (size_t i = 0; i < clean.size(); ++i) {
    if (clean[i] == '"' || clean[i] == '\'') {
      i = literal_end(clean, i);
    } else if (clean[i] == '#' && starts_line(clean, i)) {
      for (; i < clean.size() && clean[i] != '\n'; ++i) {
        if (clean[i] == '\\' && i + 1 < clean.size() && clean[i + 1] == '\n') clean[i++] = ' ';  // continued
        clean[i] = ' ';
      }
    }
  }
  const std::string_view t = clean;
  std::vector<FunctionBody> out;
  for (size_t i = 0; i < t.size(); ++i) {
    const char c = t[i];
    if (c == '"' || c == '\'') {
      i = literal_end(t, i);
    } else if (c == '{') {
      std::string name;
      std::vector<std::string> params;
      const Brace kind = classify(t, i, name, params);
      if (kind == Brace::scope) continue;
      const size_t close = matching(t, i, '{', '}');
      if (close == npos) break;
      if (kind == Brace::function) out.push_back({std::move(name), i, close, std::move(params)});
      i = close;
    }
  }
  return out;
}

namespace {

struct Instantiation {
  std::string name;
  std::vector<std::string> template_args;  // as written
  bool declared_extern = false;            // `extern template ...;`: instantiated in another unit
};

std::vector<Instantiation> instantiations(std::string_view t) {
  std::vector<Instantiation> out;
  for (size_t pos = 0; (pos = t.find("template", pos)) != npos; pos += 8) {
    if (!word_at(t, pos, "template")) continue;
    const size_t next = skip_spaces(t, pos + 8);
    if (next >= t.size() || t[next] == '<') continue;
    const bool declared_extern = ident_before(t, back_spaces(t, pos)) == "extern";
    const size_t semi = t.find(';', next);
    // The first `(` outside template arguments: the declared function's parameters.
    size_t paren = npos;
    for (size_t i = next; i < semi && i < t.size(); ++i) {
      if (t[i] == '<') {
        const size_t a = after_angles(t, i);
        if (a == npos) break;
        i = a - 1;
      } else if (t[i] == '(' || t[i] == '{') {
        paren = t[i] == '(' ? i : npos;
        break;
      }
    }
    if (paren == npos) continue;
    const size_t close = [&] {
      int d = 0;
      for (size_t i = paren; i < t.size(); ++i)
        if (t[i] == '(')
          ++d;
        else if (t[i] == ')' && --d == 0)
          return i;
      return npos;
    }();
    if (close == npos) continue;
    auto name = name_before_params(t, close);
    if (name.empty()) continue;
    std::vector<std::string> args;  // `f<T, 64, false>(`: the list before the parameters
    if (size_t e = back_spaces(t, paren); e > 0 && t[e - 1] == '>')
      if (const size_t lt = opener_of(t, e - 1); lt != npos)
        for (auto a : angle_list(t, lt)) args.emplace_back(fold_switch_constants(a, {}));
    out.push_back({std::move(name), std::move(args), declared_extern});
  }
  return out;
}

// Whether `extern` names the template `args` instantiate: the same name, and no boolean argument
// both spell that differs (the rest may be a parameter the call passes on, `T` for `half`).
bool declared_elsewhere(const std::vector<Instantiation>& externs, const std::string& name,
                        const std::vector<std::string>& args) {
  auto boolean = [](const std::string& a) { return a == "true" || a == "false"; };
  for (const auto& e : externs) {
    bool same = e.name == name;
    for (size_t k = 0; same && k < e.template_args.size() && k < args.size(); ++k)
      same = !(boolean(e.template_args[k]) && boolean(args[k]) && e.template_args[k] != args[k]);
    if (same) return true;
  }
  return false;
}

}  // namespace

bool names_complex_type(const std::vector<std::string>& args) {
  for (const auto& a : args) {
    std::string word;
    for (size_t i = 0; i <= a.size(); ++i) {
      const char c = i < a.size() ? a[i] : ' ';
      if (is_ident(c)) {
        word += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        continue;
      }
      if (word.find("complex") != std::string::npos) return true;
      word.clear();
    }
  }
  return false;
}

std::vector<std::string> explicit_instantiations(std::string_view t) {
  std::vector<std::string> out;
  for (auto& i : instantiations(t))
    if (!i.declared_extern) out.push_back(std::move(i.name));  // an extern one suppresses, instantiates none
  return out;
}

// The function a local variable of `body` was set to (`auto kernel = &ns::flash_fwd_kernel<...>;`,
// `kernel = f;`), else empty.
std::string assigned_function(std::string_view body, std::string_view var) {
  if (var.empty()) return {};  // `)<<<...`: no name to look for (and find("") never moves on)
  for (size_t pos = 0; (pos = body.find(var, pos)) != npos; pos += var.size()) {
    if (!word_at(body, pos, var)) continue;
    size_t q = skip_spaces(body, pos + var.size());
    if (q + 1 >= body.size() || body[q] != '=' || body[q + 1] == '=') continue;
    q = skip_spaces(body, q + 1);
    if (q < body.size() && body[q] == '&') q = skip_spaces(body, q + 1);
    std::string last;  // ns::ns2::name: the last part
    while (q < body.size() && is_ident(body[q])) {
      const size_t b = q;
      while (q < body.size() && is_ident(body[q])) ++q;
      last = std::string(body.substr(b, q - b));
      if (body.compare(q, 2, "::") != 0) break;
      q += 2;
    }
    if (!last.empty()) return last;
  }
  return {};
}

namespace {

// The function definitions of a unit's texts, by name.
struct Definitions {
  struct Def {
    size_t text;
    FunctionBody body;
  };
  const std::vector<std::string>& texts;
  std::vector<Def> defs;
  std::set<std::string> names;
  std::multimap<std::string, size_t> by_name;

  explicit Definitions(const std::vector<std::string>& t) : texts(t) {
    for (size_t k = 0; k < texts.size(); ++k)
      for (auto& b : function_bodies(texts[k])) {
        names.insert(b.name);
        defs.push_back({k, std::move(b)});
      }
    for (size_t d = 0; d < defs.size(); ++d) by_name.emplace(defs[d].body.name, d);
  }
  std::string_view body_of(size_t d) const {
    const auto& b = defs[d].body;
    return std::string_view(texts[defs[d].text]).substr(b.open, b.close - b.open + 1);
  }
};

// The bytes the heaviest definition of `kernel` adds as it unrolls with the integer template
// arguments `args` set (launch/unrolled_code).
double unrolled_extra(const Definitions& all, const std::string& kernel, const std::vector<std::string>& args,
                      const IntValues& known, double share) {
  double extra = 0;
  for (auto [it, end] = all.by_name.equal_range(kernel); it != end; ++it) {
    IntValues values = known;
    const auto& params = all.defs[it->second].body.template_params;
    for (size_t k = 0; k < params.size() && k < args.size(); ++k)
      if (const auto v = constant_value(args[k], known)) values[params[k]] = *v;
    const std::string_view body = all.body_of(it->second);
    extra = std::max(extra, unrolled_bytes(body, values, share) - static_cast<double>(body.size()));
  }
  return extra;
}

}  // namespace

double reachable_launches(const std::vector<std::string>& texts, double macro_factor, double kernel_kib,
                          const IntValues& constants, double unrolled_share, double complex_factor) {
  if (texts.empty()) return 0;
  IntValues known = constants;  // and what the project defines, which may use them
  for (const auto& t : texts) defined_constants(t, known);
  const Definitions all(texts);
  const auto& defs = all.defs;
  const auto& names = all.names;
  // A definition's template parameters its caller set to true or false (`run<T, true>` binds
  // Is_causal in `template <typename T, bool Is_causal> void run(...)`), as a memo key too.
  auto bind = [&](size_t d, const std::vector<std::string>& args) {
    SwitchValues bound;
    const auto& params = defs[d].body.template_params;
    for (size_t k = 0; k < params.size() && k < args.size(); ++k)
      if (args[k] == "true" || args[k] == "false") bound[params[k]] = args[k] == "true";
    return bound;
  };
  auto key_of = [](size_t d, const SwitchValues& bound) {
    std::string key = std::to_string(d);
    for (const auto& [name, value] : bound) key += (value ? "|" : "|!") + name;
    return key;
  };
  // Weighed once per definition and binding; past kMaxBindings, a definition is weighed unbound.
  constexpr size_t kMaxBindings = 4096;
  std::map<std::string, CodeWeight> code;
  const SwitchValues unbound;
  auto code_of = [&](size_t d, const SwitchValues& bound) -> const CodeWeight& {
    const bool keep = bound.empty() || code.size() < kMaxBindings;
    const std::string key = key_of(d, keep ? bound : unbound);
    auto it = code.find(key);
    if (it == code.end())
      it = code.emplace(key, weigh_code(all.body_of(d), macro_factor, names, keep ? bound : unbound)).first;
    return it->second;
  };
  // What the unit declares `extern template` is compiled by another unit: its calls add nothing here
  // (flash-attention 2 0251105's split-KV units leave the aligned variant to flash_fwd_split_align_*).
  std::vector<Instantiation> externs, roots;
  for (auto& i : instantiations(texts[0])) (i.declared_extern ? externs : roots).push_back(std::move(i));
  std::map<std::string, double> memo;
  std::set<std::string> visiting;
  std::function<double(size_t, const SwitchValues&, int)> value;  // of one definition
  auto weight = [&](const std::string& name, const std::vector<std::string>& args, int depth,
                    bool root = false) -> double {
    if (depth > kMaxCallDepth || visiting.count(name)) return 0;  // recursion compiles nothing new
    if (!root && declared_elsewhere(externs, name, args)) return 0;
    std::string key = name;
    for (const auto& a : args) key += "|" + a;
    if (auto m = memo.find(key); m != memo.end()) return m->second;
    visiting.insert(name);
    double w = 0;  // a call instantiates one of the definitions of that name: the heaviest
    for (auto [it, end] = all.by_name.equal_range(name); it != end; ++it)
      w = std::max(w, value(it->second, bind(it->second, args), depth + 1));
    visiting.erase(name);
    return memo[key] = std::min(w, kCap);
  };
  // The size of the code a kernel compiles: its body and every project function it reaches, once each.
  std::map<std::string, double> kib_memo;
  auto kernel_size = [&](const std::string& kernel) {
    if (auto m = kib_memo.find(kernel); m != kib_memo.end()) return m->second;
    std::set<std::string> seen{kernel};
    std::vector<std::string> todo{kernel};
    double bytes = 0;
    while (!todo.empty() && seen.size() <= 256) {
      const std::string name = todo.back();
      todo.pop_back();
      for (auto [it, end] = all.by_name.equal_range(name); it != end; ++it) {
        const auto& b = defs[it->second].body;
        bytes += static_cast<double>(b.close - b.open);
        for (const auto& call : code_of(it->second, unbound).calls)
          if (seen.insert(call.callee).second) todo.push_back(call.callee);
      }
    }
    return kib_memo[kernel] = bytes / 1024;
  };
  // The same with the kernel's own body as it unrolls once the launch's integer template arguments
  // are set (the heaviest of its definitions).
  std::map<std::string, double> unrolled_memo;
  auto unrolled_size = [&](const std::string& kernel, const std::vector<std::string>& args) {
    std::string key = kernel;
    for (const auto& a : args) key += "|" + a;
    if (auto m = unrolled_memo.find(key); m != unrolled_memo.end()) return m->second;
    return unrolled_memo[key] = kernel_size(kernel) + unrolled_extra(all, kernel, args, known, unrolled_share) / 1024;
  };
  // A definition's own launches: how many distinct kernels, times each kernel's size over
  // `kernel_kib`, the kernel named directly (with its template arguments) or through a variable of
  // the definition.
  auto own_launches = [&](size_t d, const CodeWeight& c) {
    if (kernel_kib <= 0) return c.launches;
    double v = 0;
    for (const auto& l : c.launched) {
      const bool direct = names.count(l.kernel) > 0;
      const std::string kernel = direct ? l.kernel : assigned_function(all.body_of(d), l.kernel);
      const double kib = kernel.empty() || !names.count(kernel)
                             ? 0
                             : unrolled_size(kernel, direct ? l.template_args : std::vector<std::string>{});
      v += l.times * std::max(kib / kernel_kib, 1.0);
    }
    return v;
  };
  value = [&](size_t d, const SwitchValues& bound, int depth) {
    const CodeWeight& c = code_of(d, bound);
    double v = own_launches(d, c);
    for (const auto& call : c.calls) v += call.times * weight(call.callee, call.template_args, depth);
    return std::min(v, kCap);
  };
  // The roots: the source's functions no other of its functions calls, and its explicit instantiations.
  std::set<std::string> called_in_source;
  for (size_t d = 0; d < defs.size() && defs[d].text == 0; ++d)
    for (const auto& call : code_of(d, unbound).calls) called_in_source.insert(call.callee);
  double total = 0;
  for (size_t d = 0; d < defs.size() && defs[d].text == 0; ++d)
    if (!called_in_source.count(defs[d].body.name)) {
      visiting.insert(defs[d].body.name);
      total += value(d, unbound, 1);
      visiting.erase(defs[d].body.name);
    }
  for (const auto& i : roots)
    total += weight(i.name, i.template_args, 1, true) * (names_complex_type(i.template_args) ? complex_factor : 1.0);
  return std::min(total, kCap);
}

}  // namespace kiln::launch
