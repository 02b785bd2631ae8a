#include "read/cmake_lang.hpp"

#include "core/text.hpp"
#include "core/version.hpp"
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <regex>

namespace kiln::read::cmake {
namespace {

bool ident_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

class Parser {
public:
  explicit Parser(const std::string& t) : s_(t) {}

  tl::expected<std::vector<Command>, std::string> run() {
    std::vector<Command> out;
    while (true) {
      if (auto e = skip_blank(); !e.empty()) return tl::unexpected(e);
      if (i_ >= s_.size()) return out;
      if (!ident_start(s_[i_]))
        return tl::unexpected(fmt::format("line {}: expected a command name, found '{}'", line_, s_[i_]));
      Command c;
      c.line = line_;
      while (i_ < s_.size() && ident_char(s_[i_]))
        c.name += static_cast<char>(std::tolower(static_cast<unsigned char>(s_[i_++])));
      while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\t')) ++i_;
      if (i_ >= s_.size() || s_[i_] != '(')
        return tl::unexpected(fmt::format("line {}: expected '(' after {}", line_, c.name));
      ++i_;
      if (auto e = arguments(c); !e.empty()) return tl::unexpected(e);
      out.push_back(std::move(c));
    }
  }

private:
  const std::string& s_;
  size_t i_ = 0;
  int line_ = 1;

  char at(size_t k) const { return k < s_.size() ? s_[k] : '\0'; }

  // "[", "=" * n, "[" at i_: returns n + 2 (the opener's length), or 0.
  size_t bracket_open(size_t k) const {
    if (at(k) != '[') return 0;
    size_t j = k + 1;
    while (at(j) == '=') ++j;
    return at(j) == '[' ? j - k + 1 : 0;
  }

  // The body of a bracket argument or comment; i_ is past the opener of `len` characters.
  std::string bracket_body(size_t len, int start_line, bool& ok) {
    const std::string close = "]" + std::string(len - 2, '=') + "]";
    auto end = s_.find(close, i_);
    if (end == std::string::npos) {
      ok = false;
      line_ = start_line;
      return {};
    }
    std::string body = s_.substr(i_, end - i_);
    line_ += static_cast<int>(std::count(body.begin(), body.end(), '\n'));
    i_ = end + close.size();
    ok = true;
    return body;
  }

  // Whitespace, newlines and comments; returns an error for an unterminated bracket comment.
  std::string skip_blank() {
    while (i_ < s_.size()) {
      char c = s_[i_];
      if (c == '\n') {
        ++line_;
        ++i_;
      } else if (c == ' ' || c == '\t' || c == '\r') {
        ++i_;
      } else if (c == '#') {
        if (size_t len = bracket_open(i_ + 1)) {
          const int start = line_;
          i_ += 1 + len;
          bool ok = false;
          bracket_body(len, start, ok);
          if (!ok) return fmt::format("line {}: unterminated bracket comment", start);
        } else {
          while (i_ < s_.size() && s_[i_] != '\n') ++i_;
        }
      } else {
        break;
      }
    }
    return {};
  }

  // After '(' of an invocation, up to and including the matching ')'.
  std::string arguments(Command& c) {
    const int start = c.line;
    int depth = 1;
    while (true) {
      if (auto e = skip_blank(); !e.empty()) return e;
      if (i_ >= s_.size()) return fmt::format("line {}: {}( is never closed", start, c.name);
      char ch = s_[i_];
      if (ch == '(') {
        ++depth;
        ++i_;
        c.args.push_back({"(", Arg::unquoted});
      } else if (ch == ')') {
        ++i_;
        if (--depth == 0) return {};
        c.args.push_back({")", Arg::unquoted});
      } else if (ch == '"') {
        ++i_;
        auto a = quoted();
        if (!a) return a.error();
        c.args.push_back({*a, Arg::quoted});
      } else if (size_t len = bracket_open(i_)) {
        const int at_line = line_;
        i_ += len;
        bool ok = false;
        std::string body = bracket_body(len, at_line, ok);
        if (!ok) return fmt::format("line {}: unterminated bracket argument", at_line);
        // A newline right after the opening bracket is not part of the argument.
        if (body.rfind("\r\n", 0) == 0)
          body.erase(0, 2);
        else if (!body.empty() && body[0] == '\n')
          body.erase(0, 1);
        c.args.push_back({body, Arg::bracket});
      } else {
        c.args.push_back({unquoted(), Arg::unquoted});
      }
    }
  }

  // After the opening quote, through the closing one.
  tl::expected<std::string, std::string> quoted() {
    const int start = line_;
    std::string out;
    while (i_ < s_.size()) {
      char ch = s_[i_++];
      if (ch == '"') return out;
      if (ch == '\n') ++line_;
      if (ch != '\\') {
        out += ch;
        continue;
      }
      if (i_ >= s_.size()) break;
      char e = s_[i_++];
      if (e == '\n') {  // line continuation: both characters vanish
        ++line_;
        continue;
      }
      if (e == '\r' && at(i_) == '\n') {
        ++i_;
        ++line_;
        continue;
      }
      out += escape(e);
    }
    return tl::unexpected(fmt::format("line {}: unterminated quoted argument", start));
  }

  // \; stays escaped (it keeps a list element whole); other escapes become their character.
  static std::string escape(char e) {
    switch (e) {
      case 'n':
        return "\n";
      case 't':
        return "\t";
      case 'r':
        return "\r";
      case '0':
        return std::string(1, '\0');
      case ';':
        return "\\;";
      default:
        return std::string(1, e);
    }
  }

  std::string unquoted() {
    std::string out;
    while (i_ < s_.size()) {
      char ch = s_[i_];
      if (ch == ' ' || ch == '\t' || ch == '\r' || ch == '\n' || ch == '(' || ch == ')' || ch == '#') break;
      if (ch == '"') {
        // Legacy unquoted argument: a"b c"d keeps its quotes and spaces.
        out += ch;
        ++i_;
        while (i_ < s_.size() && s_[i_] != '"') {
          if (s_[i_] == '\n') ++line_;
          out += s_[i_++];
        }
        if (i_ < s_.size()) out += s_[i_++];
        continue;
      }
      if (ch == '\\' && i_ + 1 < s_.size()) {
        out += escape(s_[i_ + 1]);
        i_ += 2;
        continue;
      }
      out += ch;
      ++i_;
    }
    return out;
  }
};

bool is_off(const std::string& v) {
  const std::string u = core::to_upper(v);
  return u.empty() || u == "0" || u == "OFF" || u == "NO" || u == "FALSE" || u == "N" || u == "IGNORE" ||
         u == "NOTFOUND" || (u.size() >= 9 && u.compare(u.size() - 9, 9, "-NOTFOUND") == 0);
}

bool is_on(const std::string& v) {
  const std::string u = core::to_upper(v);
  return u == "1" || u == "ON" || u == "YES" || u == "TRUE" || u == "Y";
}

Truth t_and(Truth a, Truth b) {
  if (a == Truth::no || b == Truth::no) return Truth::no;
  if (a == Truth::yes && b == Truth::yes) return Truth::yes;
  return Truth::unknown;
}
Truth t_or(Truth a, Truth b) {
  if (a == Truth::yes || b == Truth::yes) return Truth::yes;
  if (a == Truth::no && b == Truth::no) return Truth::no;
  return Truth::unknown;
}
Truth t_not(Truth a) { return a == Truth::unknown ? a : a == Truth::yes ? Truth::no : Truth::yes; }
Truth t_of(bool b) { return b ? Truth::yes : Truth::no; }

std::optional<double> number(const std::string& s) {
  if (s.empty()) return std::nullopt;
  char* end = nullptr;
  double d = std::strtod(s.c_str(), &end);
  if (end == nullptr || *end != '\0') return std::nullopt;
  return d;
}

const char* const kUnary[] = {"DEFINED",     "EXISTS",      "COMMAND",      "POLICY",
                              "TARGET",      "TEST",        "IS_DIRECTORY", "IS_SYMLINK",
                              "IS_ABSOLUTE", "IS_READABLE", "IS_WRITABLE",  "IS_EXECUTABLE"};
const char* const kBinary[] = {
    "STREQUAL",      "STRLESS",      "STRGREATER",      "STRLESS_EQUAL",      "STRGREATER_EQUAL",
    "EQUAL",         "LESS",         "GREATER",         "LESS_EQUAL",         "GREATER_EQUAL",
    "VERSION_EQUAL", "VERSION_LESS", "VERSION_GREATER", "VERSION_LESS_EQUAL", "VERSION_GREATER_EQUAL",
    "MATCHES",       "IN_LIST",      "PATH_EQUAL",      "IS_NEWER_THAN"};

class Evaluator {
public:
  Evaluator(const std::vector<Token>& t, const Lookup& lookup, std::vector<std::string>& unknown)
      : t_(t), lookup_(lookup), unknown_(unknown) {}

  Truth run() {
    if (t_.empty()) return Truth::no;  // if() is false
    Truth r = or_expr();
    return r;
  }

private:
  const std::vector<Token>& t_;
  const Lookup& lookup_;
  std::vector<std::string>& unknown_;
  size_t i_ = 0;

  bool kw(const char* k) const { return i_ < t_.size() && !t_[i_].quoted && !t_[i_].unknown && t_[i_].text == k; }
  template <size_t N>
  const char* kw_of(const char* const (&set)[N]) const {
    for (const char* k : set)
      if (kw(k)) return k;
    return nullptr;
  }
  void note(const std::string& what) {
    if (std::find(unknown_.begin(), unknown_.end(), what) == unknown_.end()) unknown_.push_back(what);
  }

  Truth or_expr() {
    Truth a = and_expr();
    while (kw("OR")) {
      ++i_;
      a = t_or(a, and_expr());
    }
    return a;
  }
  Truth and_expr() {
    Truth a = not_expr();
    while (kw("AND")) {
      ++i_;
      a = t_and(a, not_expr());
    }
    return a;
  }
  Truth not_expr() {
    if (kw("NOT")) {
      ++i_;
      return t_not(not_expr());
    }
    return predicate();
  }

  // An operand's value for a binary test: a variable's value when it names one, else the text.
  std::optional<std::string> operand(const Token& tok) {
    if (tok.unknown) return std::nullopt;
    if (tok.quoted) return tok.text;
    Value v = lookup_(tok.text);
    if (v.state == Value::unknown) {
      note(tok.text);
      return std::nullopt;
    }
    return v.state == Value::set ? v.value : tok.text;
  }

  Truth predicate() {
    if (i_ >= t_.size()) return Truth::unknown;  // dangling operator: CMake errors; kiln cannot tell
    if (const char* op = kw_of(kUnary)) {
      ++i_;
      if (i_ >= t_.size()) return Truth::unknown;
      const Token& x = t_[i_++];
      if (x.unknown) return Truth::unknown;
      if (std::string(op) != "DEFINED") {
        note(std::string(op) + " " + x.text);
        return Truth::unknown;
      }
      std::string name = x.text;
      if (name.rfind("CACHE{", 0) == 0 && name.back() == '}') name = name.substr(6, name.size() - 7);
      Value v = lookup_(name);
      if (v.state == Value::unknown) {
        note(name);
        return Truth::unknown;
      }
      return t_of(v.state == Value::set);
    }
    if (kw("(")) {
      ++i_;
      Truth r = or_expr();
      if (kw(")")) ++i_;
      return r;
    }
    const Token& lhs = t_[i_++];
    if (const char* op = kw_of(kBinary)) {
      ++i_;
      if (i_ >= t_.size()) return Truth::unknown;
      const Token& rhs = t_[i_++];
      return binary(op, lhs, rhs);
    }
    return truth(lhs);
  }

  Truth truth(const Token& tok) {
    if (tok.unknown) return Truth::unknown;
    if (is_on(tok.text)) return Truth::yes;
    if (is_off(tok.text)) return Truth::no;
    if (auto n = number(tok.text)) return t_of(*n != 0.0);
    if (tok.quoted) return Truth::no;  // CMP0054: a quoted string that is no true constant
    Value v = lookup_(tok.text);
    if (v.state == Value::unknown) {
      note(tok.text);
      return Truth::unknown;
    }
    return t_of(v.state == Value::set && value_truth(v.value));
  }

  Truth binary(const std::string& op, const Token& lhs, const Token& rhs) {
    if (op == "IN_LIST") {
      auto item = operand(lhs);
      if (!item || rhs.unknown) return Truth::unknown;
      Value list = lookup_(rhs.text);
      if (list.state == Value::unknown) {
        note(rhs.text);
        return Truth::unknown;
      }
      auto items = list_items(list.value);
      return t_of(std::find(items.begin(), items.end(), *item) != items.end());
    }
    if (op == "IS_NEWER_THAN") {
      note(lhs.text + " IS_NEWER_THAN " + rhs.text);
      return Truth::unknown;
    }
    auto a = operand(lhs), b = operand(rhs);
    if (!a || !b) return Truth::unknown;
    if (op == "STREQUAL" || op == "PATH_EQUAL") return t_of(*a == *b);
    if (op == "STRLESS") return t_of(*a < *b);
    if (op == "STRGREATER") return t_of(*a > *b);
    if (op == "STRLESS_EQUAL") return t_of(*a <= *b);
    if (op == "STRGREATER_EQUAL") return t_of(*a >= *b);
    if (op == "MATCHES") {
      try {
        return t_of(std::regex_search(*a, std::regex(*b, std::regex::extended)));
      } catch (const std::regex_error&) {
        note(lhs.text + " MATCHES " + rhs.text);
        return Truth::unknown;
      }
    }
    if (op.rfind("VERSION_", 0) == 0) {
      const int c = core::compare(core::cmake_version(*a), core::cmake_version(*b));
      if (op == "VERSION_EQUAL") return t_of(c == 0);
      if (op == "VERSION_LESS") return t_of(c < 0);
      if (op == "VERSION_GREATER") return t_of(c > 0);
      if (op == "VERSION_LESS_EQUAL") return t_of(c <= 0);
      return t_of(c >= 0);
    }
    auto x = number(*a), y = number(*b);
    if (!x || !y) return Truth::no;  // CMake: a numeric test of something not a number is false
    if (op == "EQUAL") return t_of(*x == *y);
    if (op == "LESS") return t_of(*x < *y);
    if (op == "GREATER") return t_of(*x > *y);
    if (op == "LESS_EQUAL") return t_of(*x <= *y);
    return t_of(*x >= *y);
  }
};

}  // namespace

tl::expected<std::vector<Command>, std::string> parse(const std::string& text) { return Parser(text).run(); }

std::optional<std::string> expand(const std::string& text, const Lookup& lookup, std::vector<std::string>& unknown) {
  std::string out;
  bool bad = false;
  size_t i = 0;
  const size_t n = text.size();
  while (i < n) {
    if (text[i] == '\\' && i + 1 < n) {
      out += text.substr(i, 2);
      i += 2;
      continue;
    }
    if (text[i] == '$') {
      size_t start = 0;
      bool env = false;
      if (text.compare(i, 2, "${") == 0)
        start = i + 2;
      else if (text.compare(i, 5, "$ENV{") == 0)
        start = i + 5, env = true;
      else if (text.compare(i, 7, "$CACHE{") == 0)
        start = i + 7;
      if (start) {
        int depth = 1;
        size_t k = start;
        while (k < n) {
          if (text.compare(k, 2, "${") == 0) {
            ++depth;
            k += 2;
            continue;
          }
          if (text[k] == '}' && --depth == 0) break;
          ++k;
        }
        if (k >= n) {  // no closing brace: CMake errors; keep the text
          out += text.substr(i);
          break;
        }
        auto name = expand(text.substr(start, k - start), lookup, unknown);
        if (!name) {
          bad = true;
        } else {
          const std::string key = env ? "ENV{" + *name + "}" : *name;
          Value v = lookup(key);
          if (v.state == Value::unknown) {
            if (std::find(unknown.begin(), unknown.end(), key) == unknown.end()) unknown.push_back(key);
            bad = true;
          } else if (v.state == Value::set) {
            out += v.value;
          }
        }
        i = k + 1;
        continue;
      }
    }
    out += text[i++];
  }
  if (bad) return std::nullopt;
  return out;
}

std::vector<Token> expand_args(const std::vector<Arg>& args, const Lookup& lookup, std::vector<std::string>& unknown) {
  std::vector<Token> out;
  for (const auto& a : args) {
    if (a.kind == Arg::bracket) {
      out.push_back({a.text, true, false});
      continue;
    }
    auto e = expand(a.text, lookup, unknown);
    if (a.kind == Arg::quoted) {
      if (!e)
        out.push_back({a.text, true, true});
      else {
        std::string v;  // \; is only a list escape in unquoted context; as a value it reads ';'
        for (size_t i = 0; i < e->size(); ++i) {
          if ((*e)[i] == '\\' && i + 1 < e->size() && (*e)[i + 1] == ';') continue;
          v += (*e)[i];
        }
        out.push_back({v, true, false});
      }
      continue;
    }
    if (!e) {
      out.push_back({a.text, false, true});
      continue;
    }
    for (auto& item : list_items(*e)) out.push_back({item, false, false});
  }
  return out;
}

Condition evaluate(const std::vector<Token>& args, const Lookup& lookup) {
  Condition c;
  c.truth = Evaluator(args, lookup, c.unknown).run();
  return c;
}

std::optional<bool> constant(const std::string& s) {
  if (is_on(s)) return true;
  if (is_off(s)) return false;
  if (auto n = number(s)) return *n != 0.0;
  return std::nullopt;
}

bool value_truth(const std::string& v) { return !is_off(v); }

Condition evaluate_depends(const std::string& depends, const Lookup& lookup, std::string* failed) {
  Condition all;
  all.truth = Truth::yes;
  for (const auto& element : list_items(depends)) {
    Condition c;
    auto e = expand(element, lookup, c.unknown);
    if (!e) {
      c.truth = Truth::unknown;
    } else {
      // CMakeDependentOption: string(REGEX REPLACE " +" ";" ...) then if(${dep}).
      std::vector<Token> toks;
      std::string cur;
      for (char ch : *e + " ") {
        if (ch == ' ' || ch == '\t' || ch == '\n') {
          if (!cur.empty()) toks.push_back({cur, false, false});
          cur.clear();
        } else {
          cur += ch;
        }
      }
      c.truth = Evaluator(toks, lookup, c.unknown).run();
    }
    for (auto& u : c.unknown)
      if (std::find(all.unknown.begin(), all.unknown.end(), u) == all.unknown.end()) all.unknown.push_back(u);
    if (c.truth == Truth::no) {
      all.truth = Truth::no;
      if (failed) *failed = element;
      return all;
    }
    if (c.truth == Truth::unknown) all.truth = Truth::unknown;
  }
  return all;
}

std::vector<std::string> list_items(const std::string& s) {
  std::vector<std::string> out;
  std::string cur;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\' && i + 1 < s.size() && s[i + 1] == ';') {
      cur += ';';
      ++i;
    } else if (s[i] == ';') {
      if (!cur.empty()) out.push_back(cur);
      cur.clear();
    } else {
      cur += s[i];
    }
  }
  if (!cur.empty()) out.push_back(cur);
  return out;
}

}  // namespace kiln::read::cmake
