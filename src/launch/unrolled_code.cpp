#include "launch/unrolled_code.hpp"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <limits>
#include <vector>

#include "launch/code_text.hpp"

namespace kiln::launch {
using namespace cxx;
namespace {

using Int = std::int64_t;
constexpr Int kMaxCopies = 4096;                  // of one loop: no real kernel unrolls more
constexpr double kMaxBytes = 64.0 * 1024 * 1024;  // a generated or hostile body stays bounded

bool overflows(__int128 v) { return v > std::numeric_limits<Int>::max() || v < std::numeric_limits<Int>::min(); }

// Precedence climbing over one expression; any token it cannot read fails the whole.
class Evaluator {
public:
  Evaluator(std::string_view t, const IntValues& values) : t_(t), values_(values) {}

  std::optional<Int> whole() {
    auto v = conditional();
    skip();
    if (!v || i_ != t_.size()) return std::nullopt;
    return v;
  }

private:
  void skip() { i_ = skip_spaces(t_, i_); }
  bool eat(std::string_view op) {
    skip();
    if (t_.compare(i_, op.size(), op) != 0) return false;
    i_ += op.size();
    return true;
  }

  std::optional<Int> conditional() {
    auto c = binary(0);
    if (!c || !eat("?")) return c;
    auto a = conditional();
    if (!a || !eat(":")) return std::nullopt;
    auto b = conditional();
    if (!b) return std::nullopt;
    return *c ? a : b;
  }

  // The binary operators, loosest first; each level's operators longest first.
  static constexpr std::string_view kLevels[][4] = {
      {"||"},       {"&&"},     {"|"},          {"^"}, {"&"}, {"==", "!="}, {"<=", ">=", "<", ">"},
      {"<<", ">>"}, {"+", "-"}, {"*", "/", "%"}};
  static constexpr int kDepth = sizeof(kLevels) / sizeof(kLevels[0]);
  static constexpr int kMaxNesting = 64;
  int nesting_ = 0;

  std::string_view op_at(int level) {
    skip();
    for (auto op : kLevels[level]) {
      if (op.empty() || t_.compare(i_, op.size(), op) != 0) continue;
      const char next = i_ + op.size() < t_.size() ? t_[i_ + op.size()] : '\0';
      // `|` is not `||`, `&` not `&&`, `<` not `<<` or `<=`, `=` never an assignment.
      if (op.size() == 1 && (next == op[0] || next == '=')) continue;
      if ((op == "<<" || op == ">>") && next == '=') continue;
      return op;
    }
    return {};
  }

  std::optional<Int> binary(int level) {
    if (level == kDepth) return unary();
    auto lhs = binary(level + 1);
    while (lhs) {
      const auto op = op_at(level);
      if (op.empty()) break;
      i_ += op.size();
      const auto rhs = binary(level + 1);
      if (!rhs) return std::nullopt;
      lhs = apply(op, *lhs, *rhs);
    }
    return lhs;
  }

  static std::optional<Int> apply(std::string_view op, Int a, Int b) {
    const __int128 x = a, y = b;
    __int128 r = 0;
    if (op == "||")
      r = a || b;
    else if (op == "&&")
      r = a && b;
    else if (op == "|")
      r = a | b;
    else if (op == "^")
      r = a ^ b;
    else if (op == "&")
      r = a & b;
    else if (op == "==")
      r = a == b;
    else if (op == "!=")
      r = a != b;
    else if (op == "<=")
      r = a <= b;
    else if (op == ">=")
      r = a >= b;
    else if (op == "<")
      r = a < b;
    else if (op == ">")
      r = a > b;
    else if (op == "<<" || op == ">>") {
      if (b < 0 || b > 62) return std::nullopt;
      r = op == "<<" ? x << b : x >> b;
    } else if (op == "+")
      r = x + y;
    else if (op == "-")
      r = x - y;
    else if (op == "*")
      r = x * y;
    else if (b == 0)
      return std::nullopt;
    else
      r = op == "/" ? x / y : x % y;
    if (overflows(r)) return std::nullopt;
    return static_cast<Int>(r);
  }

  std::optional<Int> unary() {
    // Each nesting (a parenthesis, a unary operator) recurses through every precedence level: a
    // 4096-character `((((...` would be some 50,000 frames. No bound of a real loop nests so deep.
    if (nesting_ >= kMaxNesting) return std::nullopt;
    ++nesting_;
    auto v = unary_nested();
    --nesting_;
    return v;
  }

  std::optional<Int> unary_nested() {
    skip();
    if (i_ >= t_.size()) return std::nullopt;
    const char c = t_[i_];
    if (c == '-' || c == '+' || c == '!' || c == '~') {
      ++i_;
      auto v = unary();
      if (!v) return std::nullopt;
      if (c == '-') return *v == std::numeric_limits<Int>::min() ? std::nullopt : std::optional<Int>(-*v);
      return c == '+' ? *v : c == '!' ? Int(!*v) : ~*v;
    }
    if (c == '(') {
      ++i_;
      auto v = conditional();
      if (!v || !eat(")")) return std::nullopt;
      return v;
    }
    if (std::isdigit(static_cast<unsigned char>(c))) return literal();
    if (is_ident(c)) return name();
    return std::nullopt;
  }

  std::optional<Int> literal() {
    size_t e = i_;
    while (e < t_.size() && (is_ident(t_[e]) || t_[e] == '\'')) ++e;
    std::string digits;
    for (char c : t_.substr(i_, e - i_))
      if (c != '\'') digits += c;
    i_ = e;
    while (!digits.empty() && std::strchr("uUlL", digits.back())) digits.pop_back();
    if (digits.empty()) return std::nullopt;
    int base = 10;
    size_t from = 0;
    if (digits.size() > 1 && digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'X')) {
      base = 16;
      from = 2;
      if (digits.size() == 2) return std::nullopt;
    } else if (digits.size() > 1 && digits[0] == '0') {
      base = 8;
      from = 1;
    }
    __int128 v = 0;
    for (size_t k = from; k < digits.size(); ++k) {
      const char c = static_cast<char>(std::tolower(static_cast<unsigned char>(digits[k])));
      const int d = std::isdigit(static_cast<unsigned char>(c)) ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : 99;
      if (d >= base) return std::nullopt;
      v = v * base + d;
      if (overflows(v)) return std::nullopt;
    }
    return static_cast<Int>(v);
  }

  // A known name, `true`/`false`, or `min(a, b)`/`max(a, b)` (std:: or not).
  std::optional<Int> name() {
    size_t e = i_;
    while (e < t_.size() && (is_ident(t_[e]) || t_.compare(e, 2, "::") == 0)) e += t_[e] == ':' ? 2 : 1;
    std::string_view n = t_.substr(i_, e - i_);
    i_ = e;
    if (n == "true" || n == "false") return Int(n == "true");
    if (n.rfind("std::", 0) == 0) n.remove_prefix(5);
    if (n == "min" || n == "max") {
      if (!eat("(")) return std::nullopt;
      auto a = conditional();
      if (!a || !eat(",")) return std::nullopt;
      auto b = conditional();
      if (!b || !eat(")")) return std::nullopt;
      return n == "min" ? std::min(*a, *b) : std::max(*a, *b);
    }
    const auto it = values_.find(n);
    if (it == values_.end()) return std::nullopt;
    return it->second;
  }

  std::string_view t_;
  const IntValues& values_;
  size_t i_ = 0;
};

// The local integer constants of `body`, in text order: `constexpr int N = ...;`, `const int M = ...;`
// (any declaration that starts with constexpr or const and sets one name by `=`).
void local_constants(std::string_view body, IntValues& values) {
  for (size_t i = 0; i < body.size(); ++i) {
    if (!is_ident(body[i]) || (i > 0 && is_ident(body[i - 1]))) continue;
    if (!word_at(body, i, "constexpr") && !word_at(body, i, "const")) {
      while (i + 1 < body.size() && is_ident(body[i + 1])) ++i;
      continue;
    }
    const size_t semi = body.find(';', i);
    if (semi == npos) return;
    const std::string_view decl = body.substr(i, semi - i);
    const size_t eq = decl.find('=');
    if (eq != npos && eq + 1 < decl.size() && decl[eq + 1] != '=' && decl.find_first_of("(<{[", 0) > eq) {
      const std::string_view name = ident_before(decl, back_spaces(decl, eq));
      if (!name.empty())
        if (auto v = constant_value(decl.substr(eq + 1), values)) values[std::string(name)] = *v;
    }
    i = semi;
  }
}

struct Loop {
  std::string counter;
  std::string_view init, cond, step;
};

// `for (` header split at its top-level semicolons; the counter is the name the init sets.
std::optional<Loop> loop_header(std::string_view header) {
  std::vector<std::string_view> parts;
  int depth = 0;
  size_t from = 0;
  for (size_t k = 0; k < header.size(); ++k) {
    const char c = header[k];
    if (c == '(' || c == '[' || c == '{')
      ++depth;
    else if (c == ')' || c == ']' || c == '}')
      --depth;
    else if (c == ';' && depth == 0) {
      parts.push_back(header.substr(from, k - from));
      from = k + 1;
    }
  }
  parts.push_back(header.substr(from));
  if (parts.size() != 3) return std::nullopt;
  const size_t eq = parts[0].find('=');
  if (eq == npos) return std::nullopt;
  const std::string_view counter = ident_before(parts[0], back_spaces(parts[0], eq));
  if (counter.empty()) return std::nullopt;
  return Loop{std::string(counter), parts[0].substr(eq + 1), parts[1], parts[2]};
}

// The counter after one step: `++i`, `i++`, `i += C`, `i *= 2`, `i >>= 1`, `i = i * 2` ...
std::optional<Int> stepped(const Loop& loop, Int value, IntValues& scratch) {
  std::string step;
  for (char c : loop.step)
    if (!std::isspace(static_cast<unsigned char>(c))) step += c;
  const std::string& n = loop.counter;
  if (step == "++" + n || step == n + "++") return value + 1;
  if (step == "--" + n || step == n + "--") return value - 1;
  scratch[n] = value;
  for (std::string_view op : {"+=", "-=", "*=", "/=", "<<=", ">>=", "="}) {
    if (step.compare(0, n.size() + op.size(), n + std::string(op)) != 0) continue;
    const std::string rhs = step.substr(n.size() + op.size());
    const std::string expr = op == "=" ? rhs : n + std::string(op.substr(0, op.size() - 1)) + "(" + rhs + ")";
    return constant_value(expr, scratch);
  }
  return std::nullopt;
}

// How many times the loop runs, when its bounds are known; at most kMaxCopies + 1.
std::optional<Int> trips(const Loop& loop, const IntValues& values) {
  auto v = constant_value(loop.init, values);
  if (!v) return std::nullopt;
  IntValues scratch = values;
  for (Int n = 0; n <= kMaxCopies; ++n) {
    scratch[loop.counter] = *v;
    const auto go = constant_value(loop.cond, scratch);
    if (!go) return std::nullopt;
    if (!*go) return n;
    const auto next = stepped(loop, *v, scratch);
    if (!next || *next == *v) return std::nullopt;
    v = next;
  }
  return kMaxCopies + 1;
}

// The count a `#pragma unroll` line names, 0 for none; -1 when it names one kiln cannot read.
Int pragma_count(std::string_view line, const IntValues& values) {
  std::string_view rest = line.substr(line.find("unroll") + 6);
  rest = rest.substr(std::min(rest.size(), skip_spaces(rest, 0)));
  while (!rest.empty() && std::isspace(static_cast<unsigned char>(rest.back()))) rest.remove_suffix(1);
  if (rest.empty()) return 0;
  const auto v = constant_value(rest, values);
  return v && *v > 0 ? *v : -1;
}

double expanded(std::string_view t, size_t begin, size_t end, const IntValues& values, int depth);

// The loop that a `#pragma unroll` line (at `p`, ending at `eol`) introduces: its bytes as it
// unrolls and the byte past it.
std::pair<double, size_t> unrolled_loop(std::string_view t, size_t p, size_t eol, size_t end, Int count,
                                        const IntValues& values, int depth) {
  const size_t f = skip_spaces(t, eol);
  if (f >= end || !word_at(t, f, "for")) return {0, eol};
  const size_t open = skip_spaces(t, f + 3);
  if (open >= end || t[open] != '(') return {0, eol};
  const size_t close = matching(t, open, '(', ')');
  if (close == npos || close >= end) return {0, eol};
  const size_t b = skip_spaces(t, close + 1);
  size_t body_end = b < end && t[b] == '{' ? matching(t, b, '{', '}') : t.find(';', b);
  if (body_end == npos || body_end >= end) return {0, eol};
  ++body_end;
  Int copies = 1;
  if (count != 1) {
    if (const auto loop = loop_header(t.substr(open + 1, close - open - 1)))
      if (const auto n = trips(*loop, values)) copies = std::min(*n, kMaxCopies);
    if (count > 1) copies = std::min(copies, count);
  }
  const double body = expanded(t, b, body_end, values, depth + 1);
  return {static_cast<double>(b - p) + static_cast<double>(std::max<Int>(copies, 1)) * body, body_end};
}

double expanded(std::string_view t, size_t begin, size_t end, const IntValues& values, int depth) {
  if (depth > 16) return static_cast<double>(end - begin);
  double bytes = 0;
  size_t from = begin;
  for (size_t p = t.find("#pragma", begin); p != npos && p < end; p = t.find("#pragma", p + 1)) {
    if (p < from) continue;
    const size_t eol = std::min(t.find('\n', p), end);
    const std::string_view line = t.substr(p, eol - p);
    const size_t w = skip_spaces(line, 7);
    if (!word_at(line, w, "unroll")) continue;
    const Int count = pragma_count(line, values);
    const auto [loop, after] = unrolled_loop(t, p, eol, end, count, values, depth);
    if (after == eol) continue;
    bytes += static_cast<double>(p - from) + loop;
    if (bytes > kMaxBytes) return kMaxBytes;
    from = after;
    p = after - 1;
  }
  return std::min(kMaxBytes, bytes + static_cast<double>(end - from));
}

}  // namespace

std::optional<std::int64_t> constant_value(std::string_view text, const IntValues& values) {
  if (text.size() > 4096) return std::nullopt;
  return Evaluator(text, values).whole();
}

void defined_constants(std::string_view text, IntValues& values) {
  for (size_t p = text.find("#define"); p != npos; p = text.find("#define", p + 7)) {
    size_t n = p + 7;
    if (n >= text.size() || (text[n] != ' ' && text[n] != '\t')) continue;
    n = skip_spaces(text, n);
    size_t e = n;
    while (e < text.size() && is_ident(text[e])) ++e;
    if (e == n || e >= text.size() || text[e] == '(') continue;  // a function-like macro
    const size_t eol = text.find('\n', e);
    const std::string_view value = text.substr(e, (eol == npos ? text.size() : eol) - e);
    if (value.find('\\') != npos) continue;  // continued lines: not one constant
    if (auto v = constant_value(value, values)) values[std::string(text.substr(n, e - n))] = *v;
  }
}

double unrolled_bytes(std::string_view body, const IntValues& values, double copy_share) {
  IntValues local = values;
  local_constants(body, local);
  const double written = static_cast<double>(body.size());
  return written + std::max(0.0, copy_share) * (expanded(body, 0, body.size(), local, 0) - written);
}

}  // namespace kiln::launch
