// Compatibility verdicts. The rules are NVIDIA's:
//  [BIN] CUDA C++ Programming Guide, "Binary Compatibility": a cubin for compute capability X.y runs
//        on X.z for z >= y only; arch-specific (sm_XYa) cubins run on exactly X.Y.
//  [PTX] same guide, "PTX Compatibility": PTX for compute_XY is JIT-compiled on any compute
//        capability >= X.Y; arch-specific PTX (compute_XYa) is not forward compatible.
//  [FAM] CUDA 12.9 "family-specific features" (NVIDIA technical blog, "NVIDIA Blackwell and NVIDIA
//        CUDA 12.9 Introduce Family-Specific Architecture Features"): sm_XYf runs on the family
//        members of the same major with minor >= Y (sm_100f on 10.0 and 10.3; sm_120f on 12.0, 12.1).
#include <gtest/gtest.h>

#include "core/arch_spec.hpp"
#include "core/compat.hpp"

using namespace kiln::core;

namespace {
TargetSet set_of(const char* torch) { return parse_torch(torch).value(); }
TargetSet cmake(const char* s) { return parse_cmake(s, {}).value(); }
}  // namespace

TEST(Compat, NativeWhenExactSass) {
  auto c = coverage(set_of("8.0;9.0"), 90);
  EXPECT_EQ(c.verdict, Verdict::native);
  EXPECT_EQ(c.via->arch.sm(), "sm_90");
}

TEST(Compat, SameMajorLowerMinorIsCompatible) {  // [BIN]
  auto c = coverage(set_of("8.0"), 86);
  EXPECT_EQ(c.verdict, Verdict::compatible);
  EXPECT_EQ(c.via->arch.sm(), "sm_80");
  // sm_120 SASS on a 12.1 GPU (DGX Spark): same major, lower minor.
  EXPECT_EQ(coverage(set_of("12.0"), 121).verdict, Verdict::compatible);
}

TEST(Compat, HigherMinorSassDoesNotRunOnLowerMinor) {  // [BIN] z >= y only
  EXPECT_EQ(coverage(set_of("8.6"), 80).verdict, Verdict::none);
  EXPECT_EQ(coverage(set_of("12.1"), 120).verdict, Verdict::none);
}

TEST(Compat, SassNeverCrossesMajor) {  // [BIN]
  EXPECT_EQ(coverage(set_of("9.0"), 100).verdict, Verdict::none);
  EXPECT_EQ(coverage(set_of("8.9"), 90).verdict, Verdict::none);
}

TEST(Compat, ArchSpecificRunsOnlyOnItsOwnArch) {  // [BIN]
  EXPECT_EQ(coverage(set_of("9.0a"), 90).verdict, Verdict::native);
  EXPECT_EQ(coverage(set_of("9.0a"), 100).verdict, Verdict::none);
  EXPECT_EQ(coverage(set_of("10.0a"), 103).verdict, Verdict::none);
  // ... and its PTX is not forward compatible either [PTX].
  EXPECT_EQ(coverage(cmake("90a-virtual"), 100).verdict, Verdict::none);
  EXPECT_EQ(coverage(cmake("90a-virtual"), 90).verdict, Verdict::ptx_jit);
}

TEST(Compat, FamilySpecificRunsAcrossItsFamily) {  // [FAM]
  EXPECT_EQ(coverage(set_of("10.0f"), 100).verdict, Verdict::native);
  EXPECT_EQ(coverage(set_of("10.0f"), 103).verdict, Verdict::compatible);
  EXPECT_EQ(coverage(set_of("10.3f"), 100).verdict, Verdict::none);
  EXPECT_EQ(coverage(set_of("12.0f"), 121).verdict, Verdict::compatible);
  EXPECT_EQ(coverage(set_of("10.0f"), 120).verdict, Verdict::none);
  EXPECT_EQ(coverage(cmake("100f-virtual"), 103).verdict, Verdict::ptx_jit);
  EXPECT_EQ(coverage(cmake("100f-virtual"), 120).verdict, Verdict::none);
}

TEST(Compat, PtxJitsForwardAcrossMajors) {  // [PTX]
  auto c = coverage(set_of("8.0+PTX"), 90);
  EXPECT_EQ(c.verdict, Verdict::ptx_jit);
  EXPECT_EQ(c.via->arch.compute(), "compute_80");
  EXPECT_EQ(coverage(set_of("9.0+PTX"), 120).verdict, Verdict::ptx_jit);
  EXPECT_EQ(coverage(set_of("9.0+PTX"), 89).verdict, Verdict::none);  // PTX is not backward compatible
}

TEST(Compat, SassIsPreferredOverPtx) {
  auto c = coverage(set_of("8.0;9.0+PTX"), 86);
  EXPECT_EQ(c.verdict, Verdict::compatible);
  EXPECT_EQ(c.via->arch.sm(), "sm_80");
}

TEST(Compat, NewestCompatibleSassIsChosen) {
  auto c = coverage(set_of("8.0;8.6"), 89);
  EXPECT_EQ(c.verdict, Verdict::compatible);
  EXPECT_EQ(c.via->arch.sm(), "sm_86");
}

TEST(Compat, NoneSaysTheRuntimeError) {
  auto c = coverage(set_of("7.5"), 90);
  EXPECT_EQ(c.verdict, Verdict::none);
  EXPECT_FALSE(c.via);
  EXPECT_NE(c.why.find("no kernel image is available"), std::string::npos);
}
