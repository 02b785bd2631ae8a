// core/version, the one reader of versions: each reader with the cases its callers rely on (the
// detectors' tool output, PEP 440 releases, CMake's VERSION_* operands, ELF symbol versions, the
// CUDA release of an nvcc version).
#include <gtest/gtest.h>

#include "core/version.hpp"

using namespace kiln::core;

namespace {

std::string lead(std::string_view v) { return leading_version(v).str(); }

}  // namespace

TEST(Version, ComparesNumericallyPartByPart) {
  auto a = parse_version("3.18"), b = parse_version("3.25.1"), c = parse_version("3.9");
  ASSERT_TRUE(a && b && c);
  EXPECT_LT(compare(*a, *b), 0);
  EXPECT_GT(compare(*a, *c), 0);                                        // 18 > 9, not "1" < "9"
  EXPECT_EQ(compare(*parse_version("12.0"), *parse_version("12")), 0);  // missing parts are zeros
  EXPECT_EQ(compare(Version{}, Version{{0, 0}}), 0);
}

TEST(Version, ParseTakesExactlyADottedNumber) {
  EXPECT_EQ(parse_version("3.25.1")->str(), "3.25.1");
  EXPECT_EQ(parse_version("12")->str(), "12");
  for (const char* bad : {"3.", "x3", "", ".4", "3..1", "2.1.0+cu121", "12.4a", "-1.2"})
    EXPECT_FALSE(parse_version(bad)) << bad;
}

TEST(Version, FindsTheFirstDottedVersionInToolOutput) {
  EXPECT_EQ(find_version("cmake version 3.25.1\n\nCMake suite")->str(), "3.25.1");
  EXPECT_EQ(find_version("GNU Make 4.3\nBuilt for x86_64")->str(), "4.3");
  EXPECT_EQ(find_version("g++ (Debian 12.2.0-14+deb12u1) 12.2.0")->str(), "12.2.0");
  EXPECT_EQ(find_version(" OpenBLAS 0.3.21 ")->str(), "0.3.21");
  EXPECT_FALSE(find_version("no digits here"));
  EXPECT_FALSE(find_version("build 42 only"));
}

TEST(Version, LeadingReleaseAsPackagesSpellIt) {
  EXPECT_EQ(lead("2.11.0+cu130"), "2.11.0");  // torch's local part
  EXPECT_EQ(lead("2.6.0a0"), "2.6.0");        // a pre-release
  EXPECT_EQ(lead("1.14.0.dev20221027"), "1.14.0");
  EXPECT_EQ(lead("v2.1"), "2.1");
  EXPECT_EQ(lead("12.9.1"), "12.9.1");
  EXPECT_EQ(lead("12."), "12");
  EXPECT_EQ(lead("2..3"), "2");
  EXPECT_TRUE(leading_version("not-a-version").empty());
  EXPECT_TRUE(leading_version("").empty());
  EXPECT_EQ(leading_version("99999999999.1").major(), 2147483647);  // too large: the largest int
}

TEST(Version, CmakeReadsEachPartsLeadingNumber) {
  EXPECT_EQ(cmake_version("1.2a.3").str(), "1.2.3");
  EXPECT_EQ(cmake_version("1.x.3").str(), "1.0.3");
  EXPECT_EQ(cmake_version("12.3.").str(), "12.3");
  EXPECT_TRUE(cmake_version("").empty());
  EXPECT_EQ(compare(cmake_version("12.3"), cmake_version("12.3.0")), 0);
  EXPECT_LT(compare(cmake_version("3.9"), cmake_version("3.18")), 0);
}

TEST(Version, SymbolVersionsCompareTheNumberAfterTheName) {
  auto less = [](const char* a, const char* b) { return compare(symbol_version(a), symbol_version(b)) < 0; };
  EXPECT_TRUE(less("GLIBC_2.4", "GLIBC_2.34"));
  EXPECT_FALSE(less("GLIBCXX_3.4.30", "GLIBCXX_3.4.9"));
  EXPECT_FALSE(less("GLIBC_2.17", "GLIBC_2.17"));
  EXPECT_EQ(symbol_version("GLIBC_PRIVATE").str(), "0");
  EXPECT_EQ(symbol_version("2.34").str(), "2.34");
}

TEST(Version, MajorMinorOfAnNvccVersion) {
  EXPECT_EQ(major_minor("12.4.131"), "12.4");
  EXPECT_EQ(major_minor("13.0.88"), "13.0");
  EXPECT_EQ(major_minor("12.4"), "12.4");  // nvcc's "release 12.4" alone: was "12" (text up to the last '.')
  EXPECT_EQ(major_minor("13"), "13");
  EXPECT_EQ(major_minor(""), "");
}
