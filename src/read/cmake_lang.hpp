#pragma once
// The CMake language, as far as kiln reads it: a file split into command invocations with their
// arguments (quoted, bracket and unquoted, comments and line continuations removed), variable
// references expanded against a scope that may not know a value, and if() conditions evaluated
// with CMake's rules to true, false or "cannot tell" (with the variables that made it so).
// Grammar: https://cmake.org/cmake/help/latest/manual/cmake-language.7.html
// if() rules: https://cmake.org/cmake/help/latest/command/if.html (CMP0054 NEW: quoted arguments
// are not dereferenced as variables).
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <tl/expected.hpp>

namespace kiln::read::cmake {

struct Arg {
  enum Kind { unquoted, quoted, bracket };
  std::string text;  // escapes decoded, continuations removed; ${...} left for expand()
  Kind kind = unquoted;
};

struct Command {
  std::string name;  // lower-cased: CMake command names are case-insensitive
  std::vector<Arg> args;
  int line = 0;  // of the command name
};

// Fails on an unterminated argument, bracket, comment or invocation, naming the line.
tl::expected<std::vector<Command>, std::string> parse(const std::string& text);

// What a scope knows of a variable: set (with a value), not set (CMake reads it as empty/false),
// or unknown to kiln (set by something kiln does not evaluate: a find_package, a branch it cannot
// decide).
struct Value {
  enum State { set, unset, unknown };
  State state = unset;
  std::string value;
  static Value of(std::string v) { return {set, std::move(v)}; }
  static Value none() { return {unset, {}}; }
  static Value dunno() { return {unknown, {}}; }
};

// `name` is a plain variable or "ENV{X}" for the environment.
using Lookup = std::function<Value(const std::string& name)>;

// ${VAR} and $ENV{VAR}, nested ones included. nullopt when a referenced variable is unknown;
// `unknown` collects their names.
std::optional<std::string> expand(const std::string& text, const Lookup& lookup, std::vector<std::string>& unknown);

// Unquoted arguments expand and split at unescaped ';' (CMake's list rule); quoted and bracket
// arguments stay one argument. An argument with an unknown variable becomes {text, unknown}.
struct Token {
  std::string text;
  bool quoted = false;
  bool unknown = false;
};
std::vector<Token> expand_args(const std::vector<Arg>& args, const Lookup& lookup, std::vector<std::string>& unknown);

enum class Truth { no, yes, unknown };
struct Condition {
  Truth truth = Truth::unknown;
  std::vector<std::string> unknown;  // variables (or predicates) kiln could not evaluate
};

// if(<args>): args already expanded (expand_args).
Condition evaluate(const std::vector<Token>& args, const Lookup& lookup);

// CMake's constants: ON/YES/TRUE/Y/non-zero number are true; OFF/NO/FALSE/N/IGNORE/NOTFOUND,
// "" and *-NOTFOUND are false; anything else is neither (nullopt).
std::optional<bool> constant(const std::string& s);
// A variable's value read as a condition: false constants and "" are false, anything else true.
bool value_truth(const std::string& v);

// cmake_dependent_option's <depends>: a ;-list whose every element, split at spaces, must hold.
// The failing element is in `failed` when the truth is no.
Condition evaluate_depends(const std::string& depends, const Lookup& lookup, std::string* failed = nullptr);

// A CMake list's items: split at ';' (\; is a ';' inside an item), empty items left out.
std::vector<std::string> list_items(const std::string& s);

}  // namespace kiln::read::cmake
