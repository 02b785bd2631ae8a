#include <gtest/gtest.h>

#include "probe/version_text.hpp"

using namespace kiln::probe;

TEST(VersionText, ParsesAndComparesNumerically) {
  auto a = parse_version("3.18"), b = parse_version("3.25.1"), c = parse_version("3.9");
  ASSERT_TRUE(a && b && c);
  EXPECT_LT(compare(*a, *b), 0);
  EXPECT_GT(compare(*a, *c), 0);  // 18 > 9, not "1" < "9"
  EXPECT_EQ(compare(*parse_version("12.0"), *parse_version("12")), 0);
  EXPECT_FALSE(parse_version("3."));
  EXPECT_FALSE(parse_version("x3"));
  EXPECT_FALSE(parse_version(""));
}

TEST(VersionText, FindsTheFirstDottedVersionInToolOutput) {
  EXPECT_EQ(find_version("cmake version 3.25.1\n\nCMake suite")->str(), "3.25.1");
  EXPECT_EQ(find_version("GNU Make 4.3\nBuilt for x86_64")->str(), "4.3");
  EXPECT_EQ(find_version("g++ (Debian 12.2.0-14+deb12u1) 12.2.0")->str(), "12.2.0");
  EXPECT_FALSE(find_version("no digits here"));
  EXPECT_FALSE(find_version("build 42 only"));
}

TEST(VersionText, ReadsHeaderDefines) {
  const std::string h =
      "#ifndef X\n#define CUDNN_MAJOR 9\n#  define CUDNN_MINOR    19 /* minor */\n"
      "#define CUDNN_PATCHLEVEL_EXTRA 7\n#define CUDNN_PATCHLEVEL 0\n#define OPENBLAS_VERSION \" OpenBLAS 0.3.21 \"\n";
  EXPECT_EQ(header_define_int(h, "CUDNN_MAJOR"), 9);
  EXPECT_EQ(header_define_int(h, "CUDNN_MINOR"), 19);
  EXPECT_EQ(header_define_int(h, "CUDNN_PATCHLEVEL"), 0);  // not the _EXTRA one
  EXPECT_FALSE(header_define_int(h, "CUDNN_MISSING"));
  EXPECT_EQ(find_version(*header_define(h, "OPENBLAS_VERSION"))->str(), "0.3.21");
  EXPECT_FALSE(header_define_int("#define TRT_MAJOR NV_OTHER\n", "TRT_MAJOR"));
}
