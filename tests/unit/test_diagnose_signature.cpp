// Loading and validating the signature table; the named-group translation; the literal prefilter.
#include <gtest/gtest.h>

#include <random>

#include "diagnose/prefilter.hpp"
#include "diagnose/signature.hpp"

using namespace kiln::diagnose;

namespace {

std::string entry(std::string_view body) {
  return std::string("[[signature]]\n") + std::string(body) +
         "\ntitle = \"t\"\ncause = \"c\"\nfix = \"f\"\ndocs = \"d\"\n";
}

TEST(CompilePattern, NamedGroupsBecomeNumberedInOrder) {
  auto p = compile_pattern(R"(a (?<x>\d+)(?:-(?<y>[a-z(]+))? (\w) (?<z>(?<inner>q)r))");
  ASSERT_TRUE(p) << p.error();
  ASSERT_EQ(p->names.size(), 5u);
  EXPECT_EQ(p->names[0], "x");
  EXPECT_EQ(p->names[1], "y");
  EXPECT_EQ(p->names[2], "");
  EXPECT_EQ(p->names[3], "z");
  EXPECT_EQ(p->names[4], "inner");
  std::smatch m;
  std::string s = "a 12-ab( w qr";
  ASSERT_TRUE(std::regex_search(s, m, p->re));
  EXPECT_EQ(m[1].str(), "12");
  EXPECT_EQ(m[2].str(), "ab(");
  EXPECT_EQ(m[4].str(), "qr");
}

TEST(CompilePattern, RejectsWhatStdRegexCannotDo) {
  EXPECT_FALSE(compile_pattern("(?<=x)y"));
  EXPECT_FALSE(compile_pattern("(?<bad name>x)"));
  EXPECT_FALSE(compile_pattern("(unclosed"));
  EXPECT_FALSE(compile_pattern("(?<x"));
}

TEST(SignatureSet, BuiltinTableLoads) {
  const auto& set = SignatureSet::builtin();
  EXPECT_GE(set.all().size(), 45u);
  ASSERT_NE(set.find("resources.compiler-killed"), nullptr);
  EXPECT_EQ(set.find("nope"), nullptr);
}

TEST(SignatureSet, ValidatesEntries) {
  const std::string ok = "id = \"a.b\"\ncategory = \"nvcc\"\npriority = 5\nkeywords = [\"abcd\"]\npatterns = ['abcd']";
  EXPECT_TRUE(SignatureSet::parse(entry(ok), "t"));
  auto bad = [&](std::string body, std::string_view needle) {
    auto r = SignatureSet::parse(entry(body), "t");
    ASSERT_FALSE(r) << body;
    EXPECT_NE(r.error().find(needle), std::string::npos) << r.error();
  };
  bad("id = \"a\"\ncategory = \"nope\"\npriority = 5\nkeywords = [\"abcd\"]\npatterns = ['abcd']", "unknown category");
  bad("id = \"a\"\ncategory = \"nvcc\"\npriority = 500\nkeywords = [\"abcd\"]\npatterns = ['abcd']", "priority");
  bad("id = \"a\"\ncategory = \"nvcc\"\npriority = 5\nkeywords = [\"ab\"]\npatterns = ['abcd']", "at least 4");
  bad("id = \"a\"\ncategory = \"nvcc\"\npriority = 5\nkeywords = [\"abcd\"]\npatterns = ['(ab']", "invalid pattern");
  bad("id = \"a\"\ncategory = \"nvcc\"\npriority = 5\nkeywords = [\"ab\\ncd\"]\npatterns = ['a']", "one line");
  EXPECT_TRUE(SignatureSet::parse(
      entry("id = \"a\"\ncategory = \"nvcc\"\npriority = 5\nkeywords = [\"abcd\\n\"]\npatterns = ['a']"), "t"));
  bad("id = \"a\"\ncategory = \"nvcc\"\npriority = 5\nkeywords = [\"abcd\"]\npatterns = []", "pattern");
  bad("id = \"a\"\ncategory = \"nvcc\"\npriority = 5\nseverity = \"fatal\"\nkeywords = [\"abcd\"]\npatterns = ['a']",
      "severity");
  auto dup = SignatureSet::parse(entry(ok) + entry(ok), "t");
  ASSERT_FALSE(dup);
  EXPECT_NE(dup.error().find("duplicate"), std::string::npos);
  auto broken = SignatureSet::parse("[[signature]\nid=", "t");
  ASSERT_FALSE(broken);
  EXPECT_EQ(broken.error().rfind("t:", 0), 0u);
}

// Every keyword of every builtin signature is a literal the prefilter finds: a pattern line that
// lacks all of its signature's keywords would never be matched.
TEST(SignatureSet, PatternsOnlyMatchLinesWithAKeyword) {
  for (const auto& s : SignatureSet::builtin().all())
    for (const auto& k : s.keywords) EXPECT_GE(k.size(), 4u) << s.id;
}

TEST(LiteralPrefilter, FindsExactlyWhatANaiveSearchFinds) {
  std::vector<std::string> kws = {"error:", "Killed", "No space left on device", "FAILED: ", "abcabc", "cabca"};
  LiteralPrefilter pf(kws);
  EXPECT_EQ(pf.stride(), 2u);
  std::mt19937 rng(7);
  const std::string alphabet = "abcKilederror:FAIL D \n";
  for (int round = 0; round < 200; ++round) {
    std::string text;
    size_t n = rng() % 400;
    for (size_t i = 0; i < n; ++i) {
      if (rng() % 40 == 0) text += kws[rng() % kws.size()];
      text += alphabet[rng() % alphabet.size()];
    }
    std::vector<LiteralPrefilter::Hit> got;
    pf.scan(text, got);
    std::vector<std::pair<size_t, uint32_t>> g, want;
    for (auto& h : got) g.emplace_back(h.pos, h.index);
    for (uint32_t k = 0; k < kws.size(); ++k)
      for (size_t p = text.find(kws[k]); p != std::string::npos; p = text.find(kws[k], p + 1)) want.emplace_back(p, k);
    std::sort(g.begin(), g.end());
    std::sort(want.begin(), want.end());
    ASSERT_EQ(g, want) << "round " << round;
  }
}

TEST(LiteralPrefilter, StrideFollowsTheShortestKeyword) {
  EXPECT_EQ(LiteralPrefilter({"abcdefgh"}).stride(), 4u);
  EXPECT_EQ(LiteralPrefilter({"abcdefgh", "Killed"}).stride(), 3u);
  EXPECT_EQ(LiteralPrefilter({"abcd"}).stride(), 1u);
  std::vector<LiteralPrefilter::Hit> hits;
  LiteralPrefilter({"abcd"}).scan("abc", hits);  // shorter than a gram
  EXPECT_TRUE(hits.empty());
}

}  // namespace
