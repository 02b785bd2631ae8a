// The launches a unit's functions reach (launch/reachable_launches.hpp): which braces are function
// bodies, which names are instantiated, and how calls and switches multiply. The fixtures are written
// here after the shapes named in each test.
#include <gtest/gtest.h>

#include "launch/reachable_launches.hpp"
#include "launch_fixtures.hpp"

using namespace kiln;

namespace {

std::vector<std::string> names(const std::vector<launch::FunctionBody>& bodies) {
  std::vector<std::string> out;
  for (const auto& b : bodies) out.push_back(b.name);
  return out;
}

}  // namespace

TEST(ReachableLaunches, FunctionBodiesAtNamespaceAndClassScope) {
  const std::string t =
      "#define SWITCH(c, ...) [&] { if (c) { __VA_ARGS__(); } }()\n"  // a macro's braces are not the file's
      "namespace a { inline namespace v1 {\n"
      "template <typename T, int N> struct Traits { static int size() { return N; } };\n"
      "int table[] = {1, 2, 3};\n"
      "template <> void run_<half, 64>(P& p) { go<half>(p); }\n"
      "__global__ __launch_bounds__(128) void kern(P p) const { }\n"
      "DEFINE_KERNEL(fwd_kernel, bool A) { }\n"
      "} }\n"
      "struct S : Base<int> { int get() const { return v; } int v; };\n"
      "enum E { X, Y };\n";
  EXPECT_EQ(names(launch::function_bodies(t)), (std::vector<std::string>{"size", "run_", "kern", "fwd_kernel", "get"}));
  // Unbalanced text ends the scan without a crash.
  EXPECT_TRUE(launch::function_bodies("void f() { {").empty());
  EXPECT_TRUE(launch::function_bodies(") ) {").empty());
}

TEST(ReachableLaunches, ExplicitInstantiationsButNotExternOnes) {
  // causal-conv1d 0d2252d: nine `template void causal_conv1d_bwd_cuda<...>(...);` at the end of a .cu.
  const std::string t =
      "template void bwd_cuda<float, float>(P& p, S s);\n"
      "template void bwd_cuda<at::Half, float>(P& p, S s);\n"
      "extern template void fwd_cuda<float>(P& p);\n"
      "template class Holder<int>;\n"
      "template <typename T> void not_one(T t);\n";
  EXPECT_EQ(launch::explicit_instantiations(t), (std::vector<std::string>{"bwd_cuda", "bwd_cuda"}));
}

TEST(ReachableLaunches, CallsAndSwitchesMultiply) {
  // A launch inside two switches of a function the unit calls from three places of a switch.
  const std::string header =
      "template <int N> void launch(P& p) { BOOL_SWITCH(a, A, [&] { BOOL_SWITCH(b, B, [&] {\n"
      "  k<N, A, B><<<1, 1>>>(p); }); }); }\n"
      "template <int N> void unused(P& p) { BOOL_SWITCH(a, A, [&] { k2<<<1, 1>>>(p); }); }\n"
      "void recursive(P& p) { recursive(p); r<<<1, 1>>>(p); }\n";
  const std::string source =
      "void run(P& p) { DISPATCH_TYPES(t, [&] { launch<1>(p); launch<2>(p); launch<3>(p); }); }\n"
      "void helper(P& p) { run(p); }\n";  // calls run: run is no root of its own
  EXPECT_DOUBLE_EQ(launch::reachable_launches({source, header}, 2), 2 * 3 * 4);
  EXPECT_DOUBLE_EQ(launch::reachable_launches({"void f(P& p) { recursive(p); }", header}, 2), 1);
  // Nothing reached: 0, for the caller's fallback.
  EXPECT_DOUBLE_EQ(launch::reachable_launches({"int x;", header}, 2), 0);
  EXPECT_DOUBLE_EQ(launch::reachable_launches({}, 2), 0);
}

TEST(ReachableLaunches, ABiggerKernelCountsMore) {
  // A launch through a local variable (`auto kernel = &ns::k<...>`, flash-attention, mamba,
  // causal-conv1d) is sized by the kernel it names and the functions that kernel calls.
  const std::string header =
      "template <int N> __global__ void small(P p) { }\n"
      "template <int N> __global__ void big(P p) { body<N>(p); }\n"
      "template <int N> __device__ void body(P p) {" +
      std::string(40 * 1024, ' ') +
      "}\n"
      "void a(P& p) { auto kernel = &ns::big<1>; kernel<<<1, 1>>>(p); }\n"
      "void b(P& p) { small<1><<<1, 1>>>(p); }\n";
  const double big = launch::reachable_launches({"void f(P& p) { a(p); }", header}, 2, 16);
  EXPECT_NEAR(big, 40.0 / 16, 0.01);
  EXPECT_DOUBLE_EQ(launch::reachable_launches({"void f(P& p) { b(p); }", header}, 2, 16), 1);
  EXPECT_DOUBLE_EQ(launch::reachable_launches({"void f(P& p) { a(p); }", header}, 2, 0), 1);  // unsized
  // A launch with no name before it (`(*table[i])<<<...`) counts once; looking for its name
  // in the body looped forever on the empty name (found by the fuzz target).
  EXPECT_DOUBLE_EQ(launch::reachable_launches({"void f(P& p) { (*table[i])<<<1, 1>>>(p); }"}, 2, 16), 1);
}

TEST(ReachableLaunches, SwitchCasesThatFoldIntoOneTemplateCompileItOnce) {
  const std::string h = kiln::testing::flash2_launchers();
  auto unit = [&](const std::string& call) {
    return launch::reachable_launches({"void f(P& p) { " + call + " }", h}, 2);
  };
  // Six switches are 64 cases, five 32 (what the old count said); the distinct kernels they
  // instantiate, by dropout and causal set by the caller:
  EXPECT_DOUBLE_EQ(unit("run_fwd<Tr, false, false>(p);"), 14);
  EXPECT_DOUBLE_EQ(unit("run_fwd<Tr, true, false>(p);"), 18);
  EXPECT_DOUBLE_EQ(unit("run_fwd<Tr, true, true>(p);"), 10);
  EXPECT_DOUBLE_EQ(unit("run_bwd<Tr, true, false>(p);"), 14);
  EXPECT_DOUBLE_EQ(unit("run_bwd<Tr, false, true>(p);"), 8);
  // The same call twice instantiates once; two traits twice.
  EXPECT_DOUBLE_EQ(unit("run_bwd<Tr, true, false>(p); run_bwd<Tr, true, false>(p);"), 14);
  EXPECT_DOUBLE_EQ(unit("run_bwd<Tr, true, false>(p); run_bwd<Tr2, true, false>(p);"), 28);
}

TEST(ReachableLaunches, AnIfConstexprCompilesOnlyTheBranchItsCaseTakes) {
  // flash-attention 2 0251105 run_mha_fwd_hdim64: `if constexpr (!Is_dropout)` picks one kernel
  // traits per dropout case; run_mha_bwd_hdim64 picks by a runtime `if`, which compiles both.
  // The unit's specialisation sets Is_causal (flash_fwd_hdim64_fp16_causal_sm80.cu).
  const std::string h =
      kiln::testing::flash2_launchers() +
      "template <typename T, bool C> void fwd64(P& p) { DROPOUT_SWITCH(pd, D, [&] {\n"
      "  if constexpr (!D) { run_fwd<Tr<128, T>, D, C>(p); } else { run_fwd<Tr<64, T>, D, C>(p); }\n"
      "}); }\n"
      "template <typename T, bool C> void bwd64(P& p) { DROPOUT_SWITCH(pd, D, [&] {\n"
      "  if (smem >= 144 * 1024) { run_bwd<Tr<128, T>, D, C>(p); } else { run_bwd<Tr<64, T>, D, C>(p); }\n"
      "}); }\n";
  auto unit = [&](const std::string& body) { return launch::reachable_launches({"template <> " + body, h}, 2); };
  EXPECT_DOUBLE_EQ(unit("void run_<half, false>(P& p) { fwd64<half, false>(p); }"), 14 + 18);
  EXPECT_DOUBLE_EQ(unit("void run_<half, true>(P& p) { fwd64<half, true>(p); }"), 8 + 10);
  EXPECT_DOUBLE_EQ(unit("void run_<half, false>(P& p) { bwd64<half, false>(p); }"), 2 * (14 + 14));
  // An explicit instantiation sets them too.
  EXPECT_DOUBLE_EQ(launch::reachable_launches({"template void fwd64<half, true>(P& p);", h}, 2), 8 + 10);
}

TEST(ReachableLaunches, WhatTheUnitDeclaresExternIsCompiledElsewhere) {
  // flash-attention 2 0251105 flash_fwd_split_hdim64_fp16_sm80.cu: `extern template void
  // run_mha_fwd_splitkv_align<cutlass::half_t, 64, false>(...);` and then the dispatch, which calls
  // it; flash_fwd_split_align_hdim64_fp16_sm80.cu instantiates it.
  const std::string h =
      "template <typename T, bool C> void align(P& p) { BOOL_SWITCH(s, S, [&] { k<T, C, S, 128><<<1, 1>>>(p); }); }\n"
      "template <typename T, bool C> void dispatch(P& p) {\n"
      "  if (p.splits == 1) { align<T, C>(p); return; }\n"
      "  BOOL_SWITCH(s, S, [&] { k<T, C, S, 256><<<1, 1>>>(p); });\n"
      "}\n";
  EXPECT_DOUBLE_EQ(launch::reachable_launches({"extern template void align<half, false>(P& p);\n"
                                               "template void dispatch<half, false>(P& p);\n",
                                               h},
                                              2),
                   2);
  EXPECT_DOUBLE_EQ(launch::reachable_launches({"template void align<half, false>(P& p);\n", h}, 2), 2);
  // Declared extern for the causal variant only: the non-causal call still instantiates here.
  EXPECT_DOUBLE_EQ(launch::reachable_launches({"extern template void align<half, true>(P& p);\n"
                                               "template void dispatch<half, false>(P& p);\n",
                                               h},
                                              2),
                   4);
}

TEST(ReachableLaunches, ASwitchConstantReachesTheKernelThroughLocalNames) {
  // mamba e9594ce (`using Ktraits = Selective_Scan_bwd_kernel_traits<kNThreads, kNItems, kIsEvenLen,
  // ...>`), and the older spellings of the same: a typedef, a const or constexpr value. Four used
  // switches, two of them only through `kC && kD` (three cases fold into two templates), and one
  // switch whose constant the kernel never sees: 8 kernels of 32 cases.
  const std::string h =
      "template <typename T> void run(P& p) {\n"
      "  BOOL_SWITCH(a, kA, [&] { BOOL_SWITCH(b, kB, [&] { BOOL_SWITCH(c, kC, [&] { BOOL_SWITCH(d, kD, [&] {\n"
      "  BOOL_SWITCH(e, kE, [&] {\n"
      "    typedef Traits<kA, T> TA;\n"
      "    const int kBlock = kB ? 128 : 64;\n"
      "    constexpr bool kCD = kC && kD;\n"
      "    auto kernel = &k<TA, kBlock, kCD>;\n"
      "    if (kE) { kernel<<<1, 1>>>(p); }\n"
      "  }); }); }); }); });\n"
      "}\n";
  EXPECT_DOUBLE_EQ(launch::reachable_launches({"void f(P& p) { run<half>(p); }", h}, 2), 8);
}

TEST(ReachableLaunches, ComplexTypesAmongAnInstantiationsArguments) {
  EXPECT_TRUE(launch::names_complex_type({"at::Half", "complex_t"}));  // mamba e9594ce's backward units
  EXPECT_TRUE(launch::names_complex_type({"c10::complex<float>"}));
  EXPECT_TRUE(launch::names_complex_type({"cuDoubleComplex"}));
  EXPECT_TRUE(launch::names_complex_type({"thrust::complex<double>", "4"}));
  EXPECT_FALSE(launch::names_complex_type({"at::Half", "float"}));
  EXPECT_FALSE(launch::names_complex_type({"cplx"}));
  EXPECT_FALSE(launch::names_complex_type({}));
  // Only explicit instantiations scale: the unit's other roots and its calls count as before.
  const std::string header = "template <typename T> void run(P& p) { k<T><<<1, 1>>>(p); }\n";
  EXPECT_DOUBLE_EQ(launch::reachable_launches({"template void run<complex_t>(P& p);", header}, 2, 0, {}, 1, 1.5), 1.5);
  EXPECT_DOUBLE_EQ(launch::reachable_launches({"template void run<float>(P& p);", header}, 2, 0, {}, 1, 1.5), 1);
  EXPECT_DOUBLE_EQ(launch::reachable_launches({"void f(P& p) { run<complex_t>(p); }", header}, 2, 0, {}, 1, 1.5), 1);
}
