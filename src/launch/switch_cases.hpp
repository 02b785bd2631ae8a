#pragma once
// Which switch cases compile a different template: the key a kernel or call site's template
// arguments fold to once the compile-time constants of the switches around it are set. A
// BOOL_SWITCH(cond, Name, [&] {...}) body compiles once with Name true and once false, but a kernel
// instantiated as `k<A && !Name, B>` is the same template in several cases: nvcc compiles each
// distinct one once. flash-attention 2 0251105's forward launch sits in six such switches (64 cases)
// and instantiates 18 kernels per dropout case; its backward sits in five (32) and instantiates 14,
// so counting cases ranked the backward unit under the forward one though it costs 1.4 times more.
// Text only: what is not `true`, `false`, a set constant, `!`, `&&`, `||` or parentheses stays as
// written, and two spellings of one value are two keys.
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace kiln::launch {

using SwitchValues = std::map<std::string, bool, std::less<>>;

// No real kernel sits inside more than a handful of switches; a generated or hostile file is capped
// at this many levels (2^20 cases), so every count stays finite.
inline constexpr size_t kMaxSwitchNesting = 20;

// `text` with each identifier of `values` set, and each template argument or boolean expression made
// of set parts folded: `k<T, A && !B, 4>` with A true and B false is `k<T,true,4>`, with B true
// `k<T,false,4>`; `X && A` with A true is `X`. Whitespace is dropped.
std::string fold_switch_constants(std::string_view text, const SwitchValues& values);

// The value of the condition `text` (an `if constexpr`'s) once `values` are set; nullopt when it
// depends on anything else.
std::optional<bool> switch_condition(std::string_view text, const SwitchValues& values);

// The constant a switch macro call names for its body, its `(` at `paren`: `BOOL_SWITCH(cond, Name,
// [&] {...})` sets Name true in one case and false in the other (flash-attention, mamba,
// causal-conv1d). Empty for a switch that names none (`AT_DISPATCH_FLOATING_TYPES(t, "name", ...)`,
// `FP16_SWITCH(cond, ...)`).
std::string switch_constant(std::string_view text, size_t paren);

// The distinct templates the sites of one piece of code instantiate over the cases of the switches
// around them: each named switch constant a site's template arguments use, directly or through a
// local `using X = ...;`, `typedef ... X;`, `auto x = &k<...>;` or `[const|constexpr] ... X = ...;`,
// set both ways, less the
// cases an `if constexpr` around the site discards; a site already instantiated with the same
// arguments in this code compiles nothing new. A switch that names no constant multiplies by
// macro_factor whatever the site's arguments, as does every case of a site kiln cannot read (a
// launch through a variable it does not see set). Bounded: 10 constants a site, 4 MB of folding.
class SiteCases {
public:
  struct Switch {
    int depth = 0;         // the parenthesis depth its arguments open
    std::string constant;  // empty: a switch that names none
    size_t at = 0;
  };

  // `bound`: the template parameters of the code that its caller set (outlives this).
  SiteCases(std::string_view text, double macro_factor, const SwitchValues& bound)
      : t_(text), factor_(macro_factor), bound_(bound) {
    find_guards();
    find_aliases();
  }

  // Whether a local variable `name` is set before `at` (a launch through it can be read).
  bool has_alias(std::string_view name, size_t at) const { return alias_before(name, at) != nullptr; }

  // The cases of `site` (at offset `at`, inside the switches `open`) that instantiate something new
  // here, times macro_factor per unnamed switch; each new one's spelling with the constants set goes
  // to `folded` (a call's template arguments).
  double count(const std::vector<Switch>& open, size_t at, std::string_view site, bool readable,
               std::vector<std::string>* folded = nullptr);

private:
  static constexpr size_t kMaxVars = 10;        // 1024 cases a site; no real launch has more than 8
  static constexpr size_t kMaxExpanded = 8000;  // characters of one site with its aliases set in

  struct Guard {
    std::string condition;
    bool then = true;  // the branch taken when the condition holds
    size_t begin = 0, end = 0;
  };
  struct Alias {
    size_t at = 0;
    std::string text;
    bool operator<(const Alias& o) const { return at < o.at; }
  };

  void find_guards();
  void find_aliases();
  const Alias* alias_before(std::string_view name, size_t at) const;
  std::string expand(std::string_view site, size_t at) const;
  static std::set<std::string, std::less<>> words(std::string_view text, const std::vector<const Guard*>& guards);

  std::string_view t_;
  double factor_;
  const SwitchValues& bound_;
  std::vector<Guard> guards_;
  std::map<std::string, std::vector<Alias>, std::less<>> aliases_;  // by name, in text order
  std::set<std::string> seen_;
  long budget_ = 4L << 20;  // characters folded in all: a generated file stays bounded
};

}  // namespace kiln::launch
