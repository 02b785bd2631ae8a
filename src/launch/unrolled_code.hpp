#pragma once
// How much code a kernel compiles once its integer template arguments are set: each `#pragma unroll`
// loop whose trip count the text tells (its bounds made of literals, the kernel's integer template
// parameters, its local `constexpr` integers and known constants) counts that many times. A softmax
// kernel dispatched over the element count (`switch (log2_elements) { case 0: k<T, 0><<<...>>>; ...
// case 14: k<T, 14><<<...>>>; }`, apex 6424da3b csrc/megatron/scaled_upper_triang_masked_softmax.h)
// unrolls 2^n / 32 iterations per thread: its case 14 compiles 512 copies of the loop bodies and case
// 0 one, so the cases are no equal instantiations. On the GPU host (nvcc 13, one target) the unit
// with cases 0-14 of both its kernels took 117.6 s of CPU, the one with cases 0-12 of two such
// kernels 92.5 s and a unit of the same headers with no launches 70-75 s: 2.2 times the device time
// for 15% more instantiations. Text only, never compiled: a bound made of anything else (a traits
// member, a function call, sizeof) leaves its loop counted once.
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace kiln::launch {

using IntValues = std::map<std::string, std::int64_t, std::less<>>;

// The value of the integer constant expression `text` with the identifiers of `values` set
// (literals, `true`/`false`, parentheses, unary - + ! ~, the binary arithmetic, shift, comparison,
// bitwise and logical operators, `?:`, `std::min`/`std::max`); nullopt when it uses anything else,
// divides by zero or overflows.
std::optional<std::int64_t> constant_value(std::string_view text, const IntValues& values);

// The object-like macros of `text` whose value is an integer constant (`#define WARP_SIZE 32`,
// `#define ROWS (WARP_SIZE * 4)` once WARP_SIZE is known), added to `values`.
void defined_constants(std::string_view text, IntValues& values);

// The bytes `body` (a function's `{...}`, comments removed) compiles with `values` set: its local
// integer constants (`constexpr int N = 1 << LOG2;`, `const int M = N / 32;`) evaluated in order,
// and each `#pragma unroll` loop of a known trip count (`for (int i = A; i < B; i += C)`, any step
// that changes the counter by a constant) counted as many times as it runs, capped by the count
// the pragma names; nested loops multiply. The bytes the copies add count `copy_share` of a written
// byte: the front end reads a loop once, only the optimiser and ptxas see its copies. Bounded: at
// most 4096 copies of one loop, 64 MiB in all.
double unrolled_bytes(std::string_view body, const IntValues& values, double copy_share = 1);

}  // namespace kiln::launch
