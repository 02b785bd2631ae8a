#pragma once
// The kernel launches a compile unit really instantiates: those its own functions reach through the
// functions its project headers define. A header of launch templates holds every variant
// (flash-attention 2 0251105's flash_fwd_launch_template.h: the forward, split-KV and combine
// launches), while each unit calls one of them; a template the unit never calls compiles no kernel.
// Each call counts once per distinct template it instantiates (as a launch does): once per switch
// case around it whose constant its template arguments use (launch/switch_cases folds them), with
// the template parameters its caller set (`run<T, true>` sets Is_causal) and the branch of an
// `if constexpr` each case takes; a function called from nine places of an `if` chain with nine
// argument lists, or instantiated nine times explicitly (`template void f<T, U>(...);`,
// causal-conv1d 0d2252d, mamba e9594ce), counts nine times, called twice alike once.
// Text only, never compiled: a call spelled through a macro is not seen, and a unit whose functions
// reach no launch returns 0, for the caller to fall back on every launch its text holds.
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "launch/switch_cases.hpp"
#include "launch/unrolled_code.hpp"

namespace kiln::launch {

struct FunctionBody {
  // The last identifier before its parameters (`run_mha_fwd_` in `run_mha_fwd_<T, 64>(...)`); for a
  // function defined through a macro, `DEFINE_KERNEL(name, ...) {`, the macro's first argument.
  std::string name;
  size_t open = 0;  // offsets of its `{` and matching `}` in the text it was found in
  size_t close = 0;
  std::vector<std::string> template_params;  // `template <typename T, bool Is_causal>`: T, Is_causal
};

// The function definitions at namespace or class scope of `text` (comments already removed).
std::vector<FunctionBody> function_bodies(std::string_view text);

// The names `text` instantiates explicitly (`template void f<int>(int);`), once per line.
std::vector<std::string> explicit_instantiations(std::string_view text);

// Whether template arguments as written name a complex-valued type: an identifier that holds
// "complex" whatever its case (`c10::complex<float>`, a project's `complex_t`, `thrust::complex`,
// `cuComplex`, `cuDoubleComplex`).
bool names_complex_type(const std::vector<std::string>& args);

// What one piece of code launches and calls: each `<<<` launch, and each call of a name in
// `callable` (`f(`, `f<A, B>(`), weighted by the cases of the *_SWITCH(...) or *DISPATCH*(...) macro
// calls around it that instantiate a different template: a switch that names a constant
// (`BOOL_SWITCH(cond, Name, [&] {...})`) by the values of Name the site's template arguments tell
// apart, one that names none (AT_DISPATCH_FLOATING_TYPES) by macro_factor, as does each case of a
// launch whose kernel kiln cannot read (a bare name, no variable set to it).
struct Call {
  std::string callee;
  double times = 0;
  std::vector<std::string> template_args;  // as instantiated: the switch constants around it set
};
struct Launch {
  std::string kernel;  // the name before the `<<<`
  double times = 0;
  std::vector<std::string> template_args;  // as written before the `<<<`, blanks dropped
};
struct CodeWeight {
  double launches = 0;
  std::vector<Launch> launched;
  std::vector<Call> calls;  // one for each distinct instantiation called
};
// `bound`: the template parameters of the code that its caller set to true or false.
CodeWeight weigh_code(std::string_view text, double macro_factor, const std::set<std::string>& callable = {},
                      const SwitchValues& bound = {});

// `texts[0]` is the unit's source, the rest its project headers, comments removed. The launches
// reached from the source's own functions and explicit instantiations, weighted by the distinct
// templates each launch and call instantiates (weigh_code) and by the size of the kernel each
// one compiles: its body and the project functions it calls, over `kernel_kib` (a kernel of that
// size, or one whose code is not found, counts once). Device compile time follows the code a kernel
// instantiates: mamba e9594ce's backward kernel is 26 KiB of code against its forward's 13 and took
// 117-170 s of CPU against 76-81 with the same launches; flash-attention 2's backward kernel
// (34 KiB through compute_dq_dk_dv_1colblock) instantiates half the forward's variants and cost 1.5
// times its CPU. The kernel's own body is sized as it unrolls (launch/unrolled_code) with the integer
// template arguments the launch writes (`k<T, 14><<<...>>>`), the constants its texts `#define` and
// `constants` (those of headers kiln does not read) set, each unrolled copy past the first counting
// `unrolled_share` of its bytes. `kernel_kib` <= 0: every launch counts once whatever its kernel.
// An explicit instantiation whose template arguments name a complex type (names_complex_type)
// counts `complex_factor` times: the same text compiles twice the arithmetic and data movement per
// element (mamba e9594ce instantiates its backward kernel header for float and complex_t, unit by
// unit, and the complex units took 1.4 times the CPU, 1.5 times past the host part).
double reachable_launches(const std::vector<std::string>& texts, double macro_factor, double kernel_kib = 0,
                          const IntValues& constants = {}, double unrolled_share = 1, double complex_factor = 1);

}  // namespace kiln::launch
