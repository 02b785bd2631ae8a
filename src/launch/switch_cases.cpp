#include "launch/switch_cases.hpp"

#include <cctype>
#include <vector>

namespace kiln::launch {
namespace {

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

  std::optional<Value> any() {
    auto v = all();
    while (v && at("||")) {
      ++pos_;
      auto r = all();
      if (!r) return std::nullopt;
      if (v->kind == Value::yes || r->kind == Value::yes)
        v = known(true);
      else if (v->kind == Value::no)
        v = r;
      else if (r->kind != Value::no)
        v = Value{Value::open, "(" + v->text + "||" + r->text + ")"};
    }
    return v;
  }

  std::optional<Value> all() {
    auto v = unary();
    while (v && at("&&")) {
      ++pos_;
      auto r = unary();
      if (!r) return std::nullopt;
      if (v->kind == Value::no || r->kind == Value::no)
        v = known(false);
      else if (v->kind == Value::yes)
        v = r;
      else if (r->kind != Value::yes)
        v = Value{Value::open, "(" + v->text + "&&" + r->text + ")"};
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

}  // namespace kiln::launch
