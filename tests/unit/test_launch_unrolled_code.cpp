// A kernel's code as it unrolls (launch/unrolled_code.hpp): integer constant expressions, the
// constants a project defines, and the bytes each `#pragma unroll` loop of a known trip count adds.
#include <gtest/gtest.h>

#include "launch/reachable_launches.hpp"
#include "launch/unrolled_code.hpp"
#include "launch_fixtures.hpp"

using namespace kiln;
using launch::constant_value;
using launch::unrolled_bytes;

TEST(UnrolledCode, IntegerConstantExpressions) {
  const launch::IntValues v{{"N", 16384}, {"W", 32}, {"LOG2", 14}};
  EXPECT_EQ(constant_value("1 << LOG2", v), 16384);
  EXPECT_EQ(constant_value("(N < W) ? N : W", v), 32);
  EXPECT_EQ(constant_value("N / W", v), 512);
  EXPECT_EQ(constant_value("N / W >= 4 ? 4 : 1", v), 4);
  EXPECT_EQ(constant_value("2 + 3 * 4 - 10 / 5 % 3", v), 12);
  EXPECT_EQ(constant_value("-W + ~0 + !0 + (W == 32) + (W != 32)", v), -32 - 1 + 1 + 1);
  EXPECT_EQ(constant_value("N >= 128 && W || false", v), 1);
  EXPECT_EQ(constant_value("(N & 0xff) | 0x10 ^ 3", v), 0x13);
  EXPECT_EQ(constant_value("std::min(N, 4096u) + max(1, W)", v), 4096 + 32);
  EXPECT_EQ(constant_value("N >> 4 << 1", v), 2048);
  EXPECT_EQ(constant_value("1'000 + 010", v), 1008);
  EXPECT_EQ(constant_value("true ? 2 : 3", v), 2);
  // Anything it cannot read whole fails the whole.
  for (const char* bad : {"", "K", "N / 0", "sizeof(float)", "Traits::kN", "f(N)", "N +", "(N", "1 << 70",
                          "9223372036854775807 + 1", "N = 3", "0x", "09"})
    EXPECT_EQ(constant_value(bad, v), std::nullopt) << bad;
}

TEST(UnrolledCode, DeepNestingFailsInsteadOfExhaustingTheStack) {
  // 2000 parentheses or unary minuses (within constant_value's 4096 characters) would recurse through
  // every precedence level each time; past 64 levels the expression is not read.
  const launch::IntValues none;
  EXPECT_EQ(constant_value(std::string(2000, '(') + "1" + std::string(2000, ')'), none), std::nullopt);
  EXPECT_EQ(constant_value(std::string(4000, '-') + "1", none), std::nullopt);
  EXPECT_EQ(constant_value(std::string(30, '(') + "1" + std::string(30, ')'), none), 1);
}

TEST(UnrolledCode, TheConstantsAProjectDefines) {
  launch::IntValues v{{"C10_WARP_SIZE", 32}};
  launch::defined_constants(
      "#define WARPS 4\n#define ROWS (WARPS * C10_WARP_SIZE)\n#define MAX(a, b) ((a) > (b) ? (a) : (b))\n"
      "#define NAME \"x\"\n#define LONG 1 + \\\n 2\n#  define INDENTED 3\n#define\n",
      v);
  EXPECT_EQ(v.at("WARPS"), 4);
  EXPECT_EQ(v.at("ROWS"), 128);
  EXPECT_EQ(v.count("MAX") + v.count("NAME") + v.count("LONG"), 0u);
}

TEST(UnrolledCode, EachLoopOfAKnownTripCountCountsItsCopies) {
  const std::string body = "{ int x;\n#pragma unroll\nfor (int i = 0; i < N; ++i) { acc += v[i]; } }";
  const double written = static_cast<double>(body.size());
  const double loop = std::string("{ acc += v[i]; }").size();
  EXPECT_DOUBLE_EQ(unrolled_bytes(body, {{"N", 8}}), written + 7 * loop);
  EXPECT_DOUBLE_EQ(unrolled_bytes(body, {{"N", 8}}, 0.5), written + 3.5 * loop);
  EXPECT_DOUBLE_EQ(unrolled_bytes(body, {}), written);  // N unknown: once
  // A local constexpr sets the bound; steps of any constant; the pragma's count caps the copies.
  const std::string local =
      "{ constexpr int M = 1 << L; constexpr int S = M >= 4 ? 4 : 1;\n"
      "#pragma unroll\nfor (int i = 0; i < M; i += S) { f(i); }\n"
      "#pragma unroll 2\nfor (int j = M; j > 0; j >>= 1) { g(j); } }";
  const double f = std::string("{ f(i); }").size(), g = std::string("{ g(j); }").size();
  EXPECT_DOUBLE_EQ(unrolled_bytes(local, {{"L", 4}}), static_cast<double>(local.size()) + 3 * f + g);
  EXPECT_DOUBLE_EQ(unrolled_bytes(local, {{"L", 1}}), static_cast<double>(local.size()) + f + g);
  // Nested loops multiply; `#pragma unroll 1`, a loop with no pragma and a runtime bound stay once.
  const std::string nested =
      "{\n#pragma unroll\nfor (int b = 0; b < 2; ++b) {\n#pragma unroll\nfor (int i = 0; i <= 3; i++) s; }\n"
      "#pragma unroll 1\nfor (int k = 0; k < 64; ++k) t;\nfor (int k = 0; k < 64; ++k) u;\n"
      "#pragma unroll\nfor (int k = 0; k < n; ++k) w; }";
  const double inner = 2;  // " s;" less its blank: the statement after the header
  const double outer_body = std::string("{\n#pragma unroll\nfor (int i = 0; i <= 3; i++) s; }").size() + 3 * inner;
  EXPECT_DOUBLE_EQ(unrolled_bytes(nested, {}), static_cast<double>(nested.size()) + 3 * inner + outer_body);
  // A loop that never ends or never starts, and a hostile count, stay bounded.
  for (const std::string once :
       {"{\n#pragma unroll\nfor (int i = 0; i < 8; i += 0) x; }", "{\n#pragma unroll\nfor (int i = 9; i < 8; ++i) x; }",
        "{\n#pragma unroll\nfor (int i = 0; i < 8; ++i)", "{\n#pragma unroll\n"})
    EXPECT_DOUBLE_EQ(unrolled_bytes(once, {}), static_cast<double>(once.size())) << once;
  EXPECT_LE(unrolled_bytes("{\n#pragma unroll\nfor (long i = 0; i < 1000000000; ++i) x; }", {}), 4096 * 3 + 64);
}

TEST(UnrolledCode, AKernelLaunchedWithItsRowLengthIsSizedByIt) {
  // After apex 6424da3b's megatron softmax (launch_fixtures): case 14 unrolls 512 copies per thread,
  // cases 0-5 one (a warp of up to 32 lanes); C10_WARP_SIZE comes from a c10 header kiln does not read.
  const std::string h = kiln::testing::apex_row_softmax(15);
  const launch::IntValues c10{{"C10_WARP_SIZE", 32}};
  auto one = [&](int n, const launch::IntValues& constants) {
    return launch::reachable_launches({"void f(float* o, const float* i) { row_softmax_fwd<float, " +
                                           std::to_string(n) + "><<<1, 32>>>(o, i, 1, 1); }",
                                       h},
                                      2, 16, constants);
  };
  EXPECT_DOUBLE_EQ(one(0, c10), 1);
  EXPECT_DOUBLE_EQ(one(9, c10), 1);  // 16 copies: under the reference kernel's 16 KiB
  EXPECT_GT(one(13, c10), 3);
  EXPECT_NEAR(one(14, c10) / one(13, c10), 2, 0.1);
  EXPECT_DOUBLE_EQ(one(14, {}), 1);  // the warp's width unknown: nothing unrolls
  // Defined by the project instead, it counts the same.
  EXPECT_DOUBLE_EQ(launch::reachable_launches(
                       {"#define C10_WARP_SIZE 32\nvoid f() { row_softmax_fwd<float, 14><<<1, 32>>>(); }", h}, 2, 16),
                   one(14, c10));
}
