#include "launch/reachable_launches.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <functional>
#include <map>

namespace kiln::launch {
namespace {

constexpr size_t npos = std::string_view::npos;
// No real kernel sits inside more than a handful of switches, nor behind more than a few dozen
// calls; a pathological or generated file is capped so every figure stays finite.
constexpr size_t kMaxNesting = 20;
constexpr int kMaxCallDepth = 32;
const double kCap = std::pow(2.0, 20);

bool is_ident(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

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

// The index of the quote that closes the literal opened at `i`, or the end of its line.
size_t literal_end(std::string_view t, size_t i) {
  const char q = t[i];
  for (++i; i < t.size() && t[i] != q && t[i] != '\n'; ++i)
    if (t[i] == '\\') ++i;
  return std::min(i, t.size() - 1);
}

size_t matching_brace(std::string_view t, size_t open) {
  int depth = 0;
  for (size_t i = open; i < t.size(); ++i) {
    const char c = t[i];
    if (c == '"' || c == '\'')
      i = literal_end(t, i);
    else if (c == '{')
      ++depth;
    else if (c == '}' && --depth == 0)
      return i;
  }
  return npos;
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

size_t skip_spaces(std::string_view t, size_t i) {
  while (i < t.size() && std::isspace(static_cast<unsigned char>(t[i]))) ++i;
  return i;
}

// Going backwards from `i` (exclusive): the index after the last non-space character before it.
size_t back_spaces(std::string_view t, size_t i) {
  while (i > 0 && std::isspace(static_cast<unsigned char>(t[i - 1]))) --i;
  return i;
}

// Whether only blanks stand between the line's start and `i`.
bool starts_line(std::string_view t, size_t i) {
  while (i > 0 && (t[i - 1] == ' ' || t[i - 1] == '\t')) --i;
  return i == 0 || t[i - 1] == '\n';
}

// The identifier that ends at `end` (exclusive), read backwards.
std::string_view ident_before(std::string_view t, size_t end) {
  size_t b = end;
  while (b > 0 && is_ident(t[b - 1])) --b;
  return t.substr(b, end - b);
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

enum class Brace { function, scope, other };

// What the `{` at `i` opens, at namespace or class scope.
Brace classify(std::string_view t, size_t i, std::string& name) {
  size_t e = back_spaces(t, i);
  static const std::set<std::string_view> trailing = {"const", "noexcept", "override", "final", "mutable", "volatile"};
  for (std::string_view w; !(w = ident_before(t, e)).empty() && trailing.count(w);) e = back_spaces(t, e - w.size());
  if (e > 0 && t[e - 1] == ')') {
    name = name_before_params(t, e - 1);
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

CodeWeight weigh_code(std::string_view text, double macro_factor, const std::set<std::string>& callable) {
  CodeWeight w;
  int depth = 0;
  std::vector<int> open;  // the paren depths at which a switch macro's arguments begin
  auto multiplier = [&] { return std::pow(macro_factor, static_cast<double>(std::min(open.size(), kMaxNesting))); };
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '<' && text.compare(i, 3, "<<<") == 0) {
      w.launches += multiplier();
      size_t e = back_spaces(text, i);
      if (e > 0 && text[e - 1] == '>') {  // kernel<T, 4><<<...>>>
        const size_t lt = opener_of(text, e - 1);
        e = lt == npos ? 0 : back_spaces(text, lt);
      }
      w.launched.emplace_back(std::string(ident_before(text, e)), multiplier());
      i += 2;
    } else if (c == '(') {
      ++depth;
    } else if (c == ')') {
      depth = std::max(0, depth - 1);
      while (!open.empty() && open.back() > depth) open.pop_back();
    } else if (is_ident(c) && (i == 0 || !is_ident(text[i - 1]))) {
      size_t end = i;
      while (end < text.size() && is_ident(text[end])) ++end;
      const std::string_view name = text.substr(i, end - i);
      size_t paren = end;
      while (paren < text.size() && (text[paren] == ' ' || text[paren] == '\t')) ++paren;
      if (paren < text.size() && text[paren] == '(' && is_switch_macro(name)) {
        open.push_back(++depth);
        i = paren;
        continue;
      }
      if (!callable.empty() && callable.count(std::string(name))) {
        size_t q = skip_spaces(text, end);
        if (q < text.size() && text[q] == '<' && text.compare(q, 3, "<<<") != 0) {
          q = after_angles(text, q);
          if (q != npos) q = skip_spaces(text, q);
        }
        if (q != npos && q < text.size() && text[q] == '(') w.calls.emplace_back(std::string(name), multiplier());
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
      const Brace kind = classify(t, i, name);
      if (kind == Brace::scope) continue;
      const size_t close = matching_brace(t, i);
      if (close == npos) break;
      if (kind == Brace::function) out.push_back({std::move(name), i, close});
      i = close;
    }
  }
  return out;
}

std::vector<std::string> explicit_instantiations(std::string_view t) {
  std::vector<std::string> out;
  for (size_t pos = 0; (pos = t.find("template", pos)) != npos; pos += 8) {
    if ((pos > 0 && is_ident(t[pos - 1])) || (pos + 8 < t.size() && is_ident(t[pos + 8]))) continue;
    const size_t next = skip_spaces(t, pos + 8);
    if (next >= t.size() || t[next] == '<') continue;
    if (ident_before(t, back_spaces(t, pos)) == "extern") continue;  // suppresses one, instantiates none
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
    if (auto name = name_before_params(t, close); !name.empty()) out.push_back(std::move(name));
  }
  return out;
}

// The function a local variable of `body` was set to (`auto kernel = &ns::flash_fwd_kernel<...>;`,
// `kernel = f;`), else empty.
std::string assigned_function(std::string_view body, std::string_view var) {
  if (var.empty()) return {};  // `)<<<...`: no name to look for (and find("") never moves on)
  for (size_t pos = 0; (pos = body.find(var, pos)) != npos; pos += var.size()) {
    if ((pos > 0 && is_ident(body[pos - 1])) || (pos + var.size() < body.size() && is_ident(body[pos + var.size()])))
      continue;
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

double reachable_launches(const std::vector<std::string>& texts, double macro_factor, double kernel_kib) {
  if (texts.empty()) return 0;
  struct Def {
    size_t text;
    FunctionBody body;
  };
  std::vector<Def> defs;
  std::set<std::string> names;
  for (size_t k = 0; k < texts.size(); ++k)
    for (auto& b : function_bodies(texts[k])) {
      names.insert(b.name);
      defs.push_back({k, std::move(b)});
    }
  std::multimap<std::string, size_t> by_name;
  for (size_t d = 0; d < defs.size(); ++d) by_name.emplace(defs[d].body.name, d);
  auto body_of = [&](size_t d) {
    const auto& b = defs[d].body;
    return std::string_view(texts[defs[d].text]).substr(b.open, b.close - b.open + 1);
  };
  std::map<size_t, CodeWeight> code;  // weighed once per definition
  auto code_of = [&](size_t d) -> const CodeWeight& {
    auto it = code.find(d);
    if (it == code.end()) it = code.emplace(d, weigh_code(body_of(d), macro_factor, names)).first;
    return it->second;
  };
  std::map<std::string, double> memo;
  std::set<std::string> visiting;
  std::function<double(size_t, int)> value;  // of one definition
  std::function<double(const std::string&, int)> weight = [&](const std::string& name, int depth) -> double {
    if (depth > kMaxCallDepth || visiting.count(name)) return 0;  // recursion compiles nothing new
    if (auto m = memo.find(name); m != memo.end()) return m->second;
    visiting.insert(name);
    double w = 0;  // a call instantiates one of the definitions of that name: the heaviest
    for (auto [it, end] = by_name.equal_range(name); it != end; ++it) w = std::max(w, value(it->second, depth + 1));
    visiting.erase(name);
    return memo[name] = std::min(w, kCap);
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
      for (auto [it, end] = by_name.equal_range(name); it != end; ++it) {
        const auto& b = defs[it->second].body;
        bytes += static_cast<double>(b.close - b.open);
        for (const auto& call : code_of(it->second).calls)
          if (seen.insert(call.first).second) todo.push_back(call.first);
      }
    }
    return kib_memo[kernel] = bytes / 1024;
  };
  // A definition's own launches: how many switch cases around each, times its kernel's size over
  // `kernel_kib`, the kernel named directly or through a variable of the definition.
  std::map<size_t, double> own_memo;
  auto own_launches = [&](size_t d) {
    const CodeWeight& c = code_of(d);
    if (kernel_kib <= 0) return c.launches;
    if (auto m = own_memo.find(d); m != own_memo.end()) return m->second;
    double v = 0;
    for (const auto& [name, times] : c.launched) {
      const std::string kernel = names.count(name) ? name : assigned_function(body_of(d), name);
      const double kib = kernel.empty() || !names.count(kernel) ? 0 : kernel_size(kernel);
      v += times * std::max(kib / kernel_kib, 1.0);
    }
    return own_memo[d] = v;
  };
  value = [&](size_t d, int depth) {
    double v = own_launches(d);
    for (const auto& [callee, times] : code_of(d).calls) v += times * weight(callee, depth);
    return std::min(v, kCap);
  };
  // The roots: the source's functions that no other function of the source calls, and its
  // explicit instantiations.
  std::set<std::string> called_in_source;
  for (size_t d = 0; d < defs.size() && defs[d].text == 0; ++d)
    for (const auto& call : code_of(d).calls) called_in_source.insert(call.first);
  double total = 0;
  for (size_t d = 0; d < defs.size() && defs[d].text == 0; ++d)
    if (!called_in_source.count(defs[d].body.name)) {
      visiting.insert(defs[d].body.name);
      total += value(d, 1);
      visiting.erase(defs[d].body.name);
    }
  for (const auto& name : explicit_instantiations(texts[0])) total += weight(name, 1);
  return std::min(total, kCap);
}

}  // namespace kiln::launch
