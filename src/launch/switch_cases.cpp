#include "launch/switch_cases.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>
#include <vector>

#include "launch/code_text.hpp"

namespace kiln::launch {
using namespace cxx;
namespace {

const double kCap = std::pow(2.0, static_cast<double>(kMaxSwitchNesting));
constexpr size_t kMaxNesting = kMaxSwitchNesting;

bool is_word(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.'; }

// Words, two-character operators (`&&`, `<=`, `::`, ...) and single characters; blanks dropped.
std::vector<std::string> tokens(std::string_view t) {
  static const std::string_view pairs[] = {"&&", "||", "!=", "==", "<=", ">=", "<<", ">>", "::", "->"};
  std::vector<std::string> out;
  for (size_t i = 0; i < t.size();) {
    if (std::isspace(static_cast<unsigned char>(t[i]))) {
      ++i;
    } else if (is_word(t[i])) {
      size_t e = i;
      while (e < t.size() && is_word(t[e])) ++e;
      out.emplace_back(t.substr(i, e - i));
      i = e;
    } else {
      size_t n = 1;
      for (auto p : pairs)
        if (t.compare(i, 2, p) == 0) n = 2;
      out.emplace_back(t.substr(i, n));
      i += n;
    }
  }
  return out;
}

// A boolean value: known, or the expression it is left as.
struct Value {
  enum Kind { no, yes, open } kind = open;
  std::string text;
};

Value known(bool b) { return {b ? Value::yes : Value::no, {}}; }

// Recursive descent over one slot's tokens: `||` over `&&` over `!` over parentheses and atoms
// (every other run of tokens, its own parentheses included). Fails on what it cannot read whole.
class Folder {
public:
  explicit Folder(const std::vector<std::string>& t) : t_(t) {}

  std::optional<Value> whole() {
    auto v = any();
    if (!v || pos_ != t_.size()) return std::nullopt;
    return v;
  }

private:
  static constexpr int kMaxDepth = 64;

  bool at(std::string_view s) const { return pos_ < t_.size() && t_[pos_] == s; }

  std::optional<Value> any() { return chain("||", true, &Folder::all); }
  std::optional<Value> all() { return chain("&&", false, &Folder::unary); }

  // Operands of `next` joined by `op`: `||` when `decides` is true (one true operand makes it true,
  // a false one drops out), `&&` when false (the reverse).
  std::optional<Value> chain(std::string_view op, bool decides, std::optional<Value> (Folder::*next)()) {
    const auto deciding = decides ? Value::yes : Value::no, neutral = decides ? Value::no : Value::yes;
    auto v = (this->*next)();
    while (v && at(op)) {
      ++pos_;
      auto r = (this->*next)();
      if (!r) return std::nullopt;
      if (v->kind == deciding || r->kind == deciding)
        v = known(decides);
      else if (v->kind == neutral)
        v = r;
      else if (r->kind != neutral)
        v = Value{Value::open, "(" + v->text + std::string(op) + r->text + ")"};
    }
    return v;
  }

  std::optional<Value> unary() {
    if (++depth_ > kMaxDepth) return std::nullopt;
    std::optional<Value> v;
    if (at("!")) {
      ++pos_;
      v = unary();
      if (v && v->kind != Value::open)
        v = known(v->kind == Value::no);
      else if (v)
        v->text = "!" + v->text;
    } else if (at("(")) {
      ++pos_;
      v = any();
      if (!v || !at(")")) return std::nullopt;
      ++pos_;
    } else {
      v = atom();
    }
    --depth_;
    return v;
  }

  std::optional<Value> atom() {
    std::string text;
    int paren = 0;
    for (; pos_ < t_.size(); ++pos_) {
      const auto& s = t_[pos_];
      if (paren == 0 && (s == "&&" || s == "||" || s == ")" || (s == "!" && text.empty()))) break;
      if (s == "(") ++paren;
      if (s == ")") --paren;
      text += s;
    }
    if (text.empty() || paren != 0) return std::nullopt;
    if (text == "true") return known(true);
    if (text == "false") return known(false);
    return Value{Value::open, text};
  }

  const std::vector<std::string>& t_;
  size_t pos_ = 0;
  int depth_ = 0;
};

std::vector<std::string> with_values(std::string_view text, const SwitchValues& values) {
  auto t = tokens(text);
  for (auto& s : t)
    if (auto it = values.find(s); it != values.end()) s = it->second ? "true" : "false";
  return t;
}

std::string spelled(const Value& v) { return v.kind == Value::yes ? "true" : v.kind == Value::no ? "false" : v.text; }

// Where a statement that starts at `i` ends (its last character): a block, an `if` with its
// `else`, or up to its `;`. npos when the text ends first.
size_t statement_end(std::string_view t, size_t i, int depth = 0) {
  i = skip_spaces(t, i);
  if (i >= t.size() || depth > 32) return npos;
  if (t[i] == '{') return matching(t, i, '{', '}');
  if (t.compare(i, 2, "if") == 0 && (i + 2 >= t.size() || !is_ident(t[i + 2]))) {
    size_t p = skip_spaces(t, i + 2);
    if (t.compare(p, 9, "constexpr") == 0) p = skip_spaces(t, p + 9);
    if (p >= t.size() || t[p] != '(') return npos;
    const size_t close = matching(t, p, '(', ')');
    if (close == npos) return npos;
    size_t end = statement_end(t, close + 1, depth + 1);
    const size_t e = end == npos ? npos : skip_spaces(t, end + 1);
    if (e != npos && t.compare(e, 4, "else") == 0 && (e + 4 >= t.size() || !is_ident(t[e + 4])))
      end = statement_end(t, e + 4, depth + 1);
    return end;
  }
  for (int paren = 0; i < t.size(); ++i) {
    if (t[i] == '"' || t[i] == '\'')
      i = literal_end(t, i);
    else if (t[i] == '(' || t[i] == '{')
      ++paren;
    else if (t[i] == ')' || t[i] == '}')
      --paren;
    else if (t[i] == ';' && paren <= 0)
      return i;
  }
  return npos;
}

}  // namespace

std::string fold_switch_constants(std::string_view text, const SwitchValues& values) {
  const auto t = with_values(text, values);
  std::string out;
  std::vector<std::string> slot;
  auto flush = [&] {
    if (auto v = Folder(slot).whole())
      out += spelled(*v);
    else
      for (const auto& s : slot) out += s;
    slot.clear();
  };
  for (const auto& s : t) {
    if (s == "," || s == "<" || s == ">" || s == ";" || s == "{" || s == "}") {
      flush();
      out += s;
    } else {
      slot.push_back(s);
    }
  }
  flush();
  return out;
}

std::optional<bool> switch_condition(std::string_view text, const SwitchValues& values) {
  const auto t = with_values(text, values);
  auto v = Folder(t).whole();
  if (!v || v->kind == Value::open) return std::nullopt;
  return v->kind == Value::yes;
}

std::string switch_constant(std::string_view t, size_t paren) {
  std::vector<size_t> commas;
  int depth = 0;
  for (size_t i = paren + 1, end = std::min(t.size(), paren + 4000); i < end && commas.size() < 3; ++i) {
    const char c = t[i];
    if (c == '"' || c == '\'')
      i = literal_end(t, i);
    else if (c == '(' || c == '[' || c == '{')
      ++depth;
    else if (c == ')' || c == ']' || c == '}') {
      if (--depth < 0) break;
    } else if (c == ',' && depth == 0)
      commas.push_back(i);
  }
  if (commas.size() < 2) return {};
  const size_t a = skip_spaces(t, commas[0] + 1), b = back_spaces(t, commas[1]);
  if (a >= b || std::isdigit(static_cast<unsigned char>(t[a]))) return {};
  for (size_t i = a; i < b; ++i)
    if (!is_ident(t[i])) return {};
  return std::string(t.substr(a, b - a));
}

// The cases of `site` that instantiate something new here (x macro_factor per unnamed switch),
// and each one's spelling with the constants set (`folded`, for a call's template arguments).
double SiteCases::count(const std::vector<Switch>& open, size_t at, std::string_view site, bool readable,
                        std::vector<std::string>* folded) {
  size_t unnamed = 0;
  std::set<std::string> named;
  std::string tag;  // the cases of unnamed switches never fold into each other
  for (const auto& s : open) {
    if (s.constant.empty())
      ++unnamed, tag += "#" + std::to_string(s.at);
    else
      named.insert(s.constant);
  }
  const double doubled = std::pow(factor_, static_cast<double>(std::min(unnamed, kMaxNesting)));
  const std::string expanded = expand(site, at);
  std::vector<const Guard*> guards;
  for (const auto& g : guards_)
    if (g.begin <= at && at <= g.end) guards.push_back(&g);
  std::vector<std::string> vars;
  const auto used = words(expanded, guards);
  for (const auto& n : named)
    if ((!readable || used.count(n)) && !bound_.count(n)) vars.push_back(n);
  if (!readable) tag += "@" + std::to_string(at);
  if (vars.size() > kMaxVars || budget_ <= 0)  // too many to enumerate: every case, as counted before
    return std::min(std::pow(2.0, static_cast<double>(std::min(vars.size(), kMaxNesting))) * doubled, kCap);
  double n = 0;
  for (size_t bits = 0; bits < (size_t{1} << vars.size()); ++bits) {
    SwitchValues values = bound_;
    for (size_t v = 0; v < vars.size(); ++v) values[vars[v]] = (bits >> v) & 1;
    bool discarded = false;
    for (const auto* g : guards) {
      const auto holds = switch_condition(g->condition, values);
      discarded = discarded || (holds && *holds != g->then);
    }
    if (discarded) continue;
    budget_ -= static_cast<long>(expanded.size()) + 1;
    std::string spelling = fold_switch_constants(expanded, values);
    std::string key = spelling + tag;
    if (!readable) key += "/" + std::to_string(bits);
    if (!seen_.insert(std::move(key)).second) continue;
    ++n;
    if (folded) folded->push_back(std::move(spelling));
  }
  return n * doubled;
}

// `if constexpr (C) A else B`: A's range needs C, B's its negation.
void SiteCases::find_guards() {
  for (size_t pos = 0; (pos = t_.find("constexpr", pos)) != npos && guards_.size() < 4096; pos += 9) {
    const size_t b = back_spaces(t_, pos);
    if (ident_before(t_, b) != "if" || (pos + 9 < t_.size() && is_ident(t_[pos + 9]))) continue;
    const size_t p = skip_spaces(t_, pos + 9);
    if (p >= t_.size() || t_[p] != '(') continue;
    const size_t close = matching(t_, p, '(', ')');
    if (close == npos) continue;
    const size_t then_end = statement_end(t_, close + 1);
    if (then_end == npos) continue;
    const std::string condition(t_.substr(p + 1, close - p - 1));
    guards_.push_back({condition, true, close + 1, then_end});
    const size_t e = skip_spaces(t_, then_end + 1);
    if (t_.compare(e, 4, "else") != 0 || (e + 4 < t_.size() && is_ident(t_[e + 4]))) continue;
    if (const size_t else_end = statement_end(t_, e + 4); else_end != npos)
      guards_.push_back({condition, false, e + 4, else_end});
  }
}

// `using X = ...;`, `auto x = ...;`, `constexpr [static] T X = ...;`: X's text, from where it is set.
void SiteCases::find_aliases() {
  size_t found = 0;
  for (std::string_view word : {"using", "auto", "constexpr", "const", "typedef"})
    for (size_t pos = 0; (pos = t_.find(word, pos)) != npos && found < 4096; pos += word.size()) {
      if (!word_at(t_, pos, word)) continue;
      const size_t semi = t_.find(';', pos);
      if (semi == npos || semi - pos > 2000) continue;
      if (word == "typedef") {  // `typedef Traits<kX, T> Kt;`: the name last
        const size_t end = back_spaces(t_, semi);
        const std::string_view name = ident_before(t_, end);
        if (name.empty() || end - name.size() <= pos + word.size()) continue;
        aliases_[std::string(name)].push_back(
            {pos, std::string(t_.substr(pos + word.size(), end - name.size() - pos - word.size()))});
        ++found;
        continue;
      }
      // The first `=` of the declaration (not `==`, `<=`, ...), before any bracket that would make
      // it a parameter list or a body: `const P& p) { x = 1;` is no setting of x.
      size_t eq = pos;
      for (; eq < semi && !std::strchr("({}", t_[eq]); ++eq)
        if (t_[eq] == '=' && t_[eq + 1] != '=' && !std::strchr("=!<>", t_[eq - 1])) break;
      if (eq >= semi || t_[eq] != '=') continue;
      const std::string_view name = ident_before(t_, back_spaces(t_, eq));
      if (name.empty()) continue;
      aliases_[std::string(name)].push_back({pos, std::string(t_.substr(eq + 1, semi - eq - 1))});
      ++found;
    }
  for (auto& [name, list] : aliases_) std::sort(list.begin(), list.end());
}

// The last setting of `name` before `at`, else null.
const SiteCases::Alias* SiteCases::alias_before(std::string_view name, size_t at) const {
  const auto it = aliases_.find(name);
  if (it == aliases_.end()) return nullptr;
  const auto& list = it->second;
  const auto after = std::lower_bound(list.begin(), list.end(), Alias{at, {}});
  return after == list.begin() ? nullptr : &*std::prev(after);
}

// The site with each alias set before it written out (a few levels, bounded).
std::string SiteCases::expand(std::string_view site, size_t at) const {
  std::string out(site);
  for (int level = 0; level < 4; ++level) {
    std::string next;
    bool changed = false;
    for (size_t i = 0; i < out.size();) {
      if (is_ident(out[i]) && (i == 0 || !is_ident(out[i - 1]))) {
        size_t e = i;
        while (e < out.size() && is_ident(out[e])) ++e;
        const std::string_view w = std::string_view(out).substr(i, e - i);
        const Alias* a = alias_before(w, at);
        next += a ? a->text : std::string(w);
        changed = changed || a;
        i = e;
      } else {
        next += out[i++];
      }
      if (next.size() > kMaxExpanded) return out;
    }
    out = std::move(next);
    if (!changed) break;
  }
  return out;
}

std::set<std::string, std::less<>> SiteCases::words(std::string_view text, const std::vector<const Guard*>& guards) {
  std::set<std::string, std::less<>> out;
  auto add = [&](std::string_view s) {
    for (size_t i = 0; i < s.size();) {
      if (!is_ident(s[i])) {
        ++i;
        continue;
      }
      size_t e = i;
      while (e < s.size() && is_ident(s[e])) ++e;
      out.emplace(s.substr(i, e - i));
      i = e;
    }
  };
  add(text);
  for (const auto* g : guards) add(g->condition);
  return out;
}

}  // namespace kiln::launch
