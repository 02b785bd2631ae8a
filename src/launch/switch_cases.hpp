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
#include <string>
#include <string_view>

namespace kiln::launch {

using SwitchValues = std::map<std::string, bool, std::less<>>;

// `text` with each identifier of `values` set, and each template argument or boolean expression made
// of set parts folded: `k<T, A && !B, 4>` with A true and B false is `k<T,true,4>`, with B true
// `k<T,false,4>`; `X && A` with A true is `X`. Whitespace is dropped.
std::string fold_switch_constants(std::string_view text, const SwitchValues& values);

// The value of the condition `text` (an `if constexpr`'s) once `values` are set; nullopt when it
// depends on anything else.
std::optional<bool> switch_condition(std::string_view text, const SwitchValues& values);

}  // namespace kiln::launch
