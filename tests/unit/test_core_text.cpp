#include <gtest/gtest.h>

#include "core/text.hpp"

using namespace kiln::core;

TEST(Text, TrimTakesWhiteSpaceOffTheEnds) {
  EXPECT_EQ(trim("  a b\t\r\n"), "a b");
  EXPECT_EQ(trim(" \t\n"), "");
  EXPECT_EQ(trim(""), "");
  EXPECT_EQ(trim_right("  x  \r"), "  x");
}

TEST(Text, SplitKeepsEmptyFields) {
  EXPECT_EQ(split("a,,b", ','), (std::vector<std::string>{"a", "", "b"}));
  EXPECT_EQ(split("", ':'), (std::vector<std::string>{""}));
  EXPECT_EQ(split("/usr/bin:", ':'), (std::vector<std::string>{"/usr/bin", ""}));
}

TEST(Text, PrefixAndSuffix) {
  EXPECT_TRUE(starts_with("compute_90", "compute_"));
  EXPECT_FALSE(starts_with("sm", "sm_"));
  EXPECT_TRUE(ends_with("a.cu.o", ".cu.o"));
  EXPECT_FALSE(ends_with("o", ".o"));
  EXPECT_TRUE(ends_with("x", ""));
}

TEST(Text, NumbersAreParsedWholeOrNotAtAll) {
  EXPECT_EQ(parse_int(" -42 "), -42);
  EXPECT_EQ(parse_int("+7"), 7);
  EXPECT_FALSE(parse_int("12abc"));  // a prefix is not a number
  EXPECT_FALSE(parse_int(""));
  EXPECT_FALSE(parse_int("99999999999999999999"));  // out of range
  EXPECT_EQ(parse_uint("18446744073709551615"), 18446744073709551615ULL);
  EXPECT_FALSE(parse_uint("-1"));
  EXPECT_FALSE(parse_uint("1.5"));
  EXPECT_DOUBLE_EQ(*parse_double("1.5"), 1.5);
  EXPECT_DOUBLE_EQ(*parse_double("2e3"), 2000.0);
  EXPECT_FALSE(parse_double("1.5s"));
  EXPECT_FALSE(parse_double("nanx"));
}

TEST(Text, WordsJoinAndReplace) {
  EXPECT_EQ(split_words(" a  b\tc\n"), (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_TRUE(split_words(" \n").empty());
  EXPECT_EQ(split_any("a;; b,c;", "; ,"), (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_EQ(split_any("sm_80", ",;"), (std::vector<std::string>{"sm_80"}));
  EXPECT_TRUE(split_any(";;", ";").empty());
  EXPECT_TRUE(split_any("", ";").empty());
  EXPECT_EQ(join({"a", "b", "c"}, ", "), "a, b, c");
  EXPECT_EQ(join({}, ","), "");
  EXPECT_EQ(replace_all("/b/x /b", "/b", "<build>"), "<build>/x <build>");
  EXPECT_EQ(replace_all("aa", "a", "aa"), "aaaa");  // what it wrote is not searched again
  EXPECT_EQ(replace_all("abc", "", "x"), "abc");
  EXPECT_EQ(trim_line_end("a b \r\n"), "a b ");
}

TEST(Text, CaseChangesAsciiLettersOnly) {
  EXPECT_EQ(to_lower("CUDA_Arch-9"), "cuda_arch-9");
  EXPECT_EQ(to_upper("on\xc3\xa9"), "ON\xc3\xa9");
}

TEST(Text, PathParts) {
  EXPECT_EQ(base_name("/usr/local/cuda/bin/nvcc"), "nvcc");
  EXPECT_EQ(base_name("nvcc"), "nvcc");
  EXPECT_EQ(dir_name("/usr/local/cuda/bin/nvcc"), "/usr/local/cuda/bin");
  EXPECT_EQ(dir_name("/nvcc"), "/");
  EXPECT_EQ(dir_name("nvcc"), ".");
  EXPECT_EQ(without_trailing_slashes("/b/build-kiln//"), "/b/build-kiln");
  EXPECT_EQ(without_trailing_slashes("rel/"), "rel");
  EXPECT_EQ(without_trailing_slashes("///"), "/");
  EXPECT_EQ(without_trailing_slashes(""), "");
}

TEST(Text, CountsAreWholeAndInRange) {
  EXPECT_EQ(parse_count("4"), 4);
  EXPECT_EQ(parse_count("0"), 0);
  EXPECT_FALSE(parse_count("-1"));
  EXPECT_FALSE(parse_count("4x"));
  EXPECT_FALSE(parse_count("99999999999"));
}
